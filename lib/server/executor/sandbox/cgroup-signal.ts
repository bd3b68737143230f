import { setTimeout as delay } from "node:timers/promises";
import { GROUP_POLL_MS, KILL_WAIT_MS, backoffDelay, groupPollDelay } from "../process-group";
import { CGROUP_POLL_MS, hasControl, listLiveCgroupPids, readControl, writeControl } from "./cgroup-fs";

/** The directories of one call's cgroups, per hierarchy; null where the call has none. */
export interface CallCgroupDirs {
  unified: string | null;
  memory: string | null;
  pids: string | null;
  cpu: string | null;
  freezer: string | null;
}

/** Longest wait, in ms, for a freeze to settle before signalling anyway. */
const FREEZE_WAIT_MS = 250;

/** Every non-null directory of a call. */
export function callDirList(dirs: CallCgroupDirs): string[] {
  return [dirs.unified, dirs.memory, dirs.pids, dirs.cpu, dirs.freezer].filter((dir): dir is string => dir !== null);
}

/** The live processes of the call: the union over its cgroups (each process joined all of them). */
export function liveMembers(dirs: CallCgroupDirs): number[] {
  return [...new Set(callDirList(dirs).flatMap(listLiveCgroupPids))];
}

/**
 * Sends `signals` to every live process of the call but those `spare` names. Where the call can be frozen (v2 cgroup.freeze
 * or the v1 freezer) the list is read while it is frozen, so no listed pid can exit and be reused by
 * an unrelated process before it is signalled (pid_max may be as low as 32768). Never rejects.
 */
export async function signalMembers(dirs: CallCgroupDirs, signals: readonly NodeJS.Signals[], spare: (pid: number) => boolean = () => false): Promise<void> {
  await whileFrozen(dirs, () => {
    for (const pid of liveMembers(dirs)) if (!spare(pid)) for (const signal of signals) sendSignal(pid, signal);
  });
}

/**
 * Kills every process of the call at once: `cgroup.kill` (v2), else freeze → SIGKILL each → thaw (v1
 * freezer; a frozen process cannot fork or exit, so none is missed), else SIGKILL each listed pid
 * (a fork between listing and killing is caught by the caller's next round). Never rejects.
 */
export async function killMembers(dirs: CallCgroupDirs): Promise<void> {
  if (dirs.unified !== null && hasControl(dirs.unified, "cgroup.kill")) {
    try {
      writeControl(dirs.unified, "cgroup.kill", "1");
      return;
    } catch {
      // Fall through to the slower ways: a kernel without the file's support answers EINVAL or similar.
    }
  }
  await signalMembers(dirs, ["SIGKILL"]);
}

/**
 * Empties the call's cgroups: SIGTERM + SIGCONT to every process but those `spareFromTerm` names, up
 * to `graceMs` ms for them to exit, then killMembers every GROUP_POLL_MS until none is left or
 * KILL_WAIT_MS passed. Resolves with the pids still alive then (normally none; a task in
 * uninterruptible sleep may linger). Never rejects.
 */
export async function emptyCallCgroups(dirs: CallCgroupDirs, graceMs: number, spareFromTerm?: (pid: number) => boolean): Promise<number[]> {
  if (liveMembers(dirs).length === 0) return [];
  await signalMembers(dirs, ["SIGTERM", "SIGCONT"], spareFromTerm);
  const graceEnd = Date.now() + graceMs;
  for (let attempt = 0; Date.now() < graceEnd; attempt++) {
    await delay(Math.min(groupPollDelay(attempt), Math.max(1, graceEnd - Date.now())));
    if (liveMembers(dirs).length === 0) return [];
  }
  return killUntilEmpty(dirs, KILL_WAIT_MS);
}

/** killMembers until the call's cgroups are empty or `waitMs` passed; resolves with the survivors. */
export async function killUntilEmpty(dirs: CallCgroupDirs, waitMs: number): Promise<number[]> {
  const end = Date.now() + waitMs;
  for (;;) {
    await killMembers(dirs);
    await delay(GROUP_POLL_MS);
    const left = liveMembers(dirs);
    if (left.length === 0 || Date.now() >= end) return left;
  }
}

/** Runs `action` with the call frozen where a freezer exists; always thaws afterwards. */
async function whileFrozen(dirs: CallCgroupDirs, action: () => void): Promise<void> {
  const thaw = await freeze(dirs);
  try {
    action();
  } finally {
    thaw();
  }
}

/** Freezes the call and waits (at most FREEZE_WAIT_MS) until the kernel says it is frozen; returns the thaw. */
async function freeze(dirs: CallCgroupDirs): Promise<() => void> {
  const unified = dirs.unified;
  if (unified !== null && hasControl(unified, "cgroup.freeze") && tryWrite(unified, "cgroup.freeze", "1")) {
    await waitFor(() => /^frozen 1$/m.test(readControl(unified, "cgroup.events") ?? ""));
    return () => void tryWrite(unified, "cgroup.freeze", "0");
  }
  const freezer = dirs.freezer;
  if (freezer !== null && tryWrite(freezer, "freezer.state", "FROZEN")) {
    await waitFor(() => readControl(freezer, "freezer.state") === "FROZEN");
    return () => void tryWrite(freezer, "freezer.state", "THAWED");
  }
  return () => undefined;
}

/** Polls `check` after 1, 2, 4, 8, then every CGROUP_POLL_MS ms, for at most FREEZE_WAIT_MS (a freeze most often settles within a millisecond). */
async function waitFor(check: () => boolean): Promise<void> {
  const end = Date.now() + FREEZE_WAIT_MS;
  for (let attempt = 0; !check() && Date.now() < end; attempt++) await delay(backoffDelay(attempt, CGROUP_POLL_MS));
}

function tryWrite(dir: string, file: string, value: string): boolean {
  try {
    writeControl(dir, file, value);
    return true;
  } catch {
    return false;
  }
}

function sendSignal(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // ESRCH: already gone, the goal. EPERM: it changed uid away from ours; the caller's next round reports it.
  }
}

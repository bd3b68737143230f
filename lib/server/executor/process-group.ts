import { setTimeout as delay } from "node:timers/promises";
import { listLiveGroupMembers, readProcStat } from "./proc-stat";

/** How often, in ms, a group is checked while waiting for it to end. */
export const GROUP_POLL_MS = 25;

/**
 * How long, in ms, to wait before the `attempt`-th check (0, 1, …) of a group or cgroup that had a
 * live member: 1, 2, 4, 8, 16, then GROUP_POLL_MS. A member found at the first check is most often a
 * process still finishing its exit (the call's own process had exited), gone within a millisecond or
 * two; a flat 25 ms poll made one spawn in four of the benchmark's baseline take ~44 ms instead of ~9.
 */
export function groupPollDelay(attempt: number): number {
  return backoffDelay(attempt, GROUP_POLL_MS);
}

/**
 * The `attempt`-th (0, 1, …) of a doubling series of waits, in ms: 1, 2, 4, … up to `capMs`. For
 * polling a kernel state that most often settles within a millisecond or two.
 */
export function backoffDelay(attempt: number, capMs: number): number {
  return Math.min(capMs, 2 ** Math.max(0, Math.floor(attempt)));
}

/** How long, in ms, to keep re-sending SIGKILL before reporting members that would not die. */
export const KILL_WAIT_MS = 5_000;

/**
 * Throws RangeError unless `pgid` is a safe target for `kill(-pgid)`: an integer above 1. `kill(0)`
 * would hit the console's own group and `kill(-1)` every process it may signal.
 */
export function assertGroupId(pgid: number): void {
  if (!Number.isInteger(pgid) || pgid <= 1) throw new RangeError(`not a process group id: ${pgid}`);
}

/** True when `pgid` is the console's own process group (which it must never signal). */
export function isOwnGroup(pgid: number): boolean {
  return readProcStat(process.pid)?.pgrp === pgid;
}

/**
 * True while the group has a live member: a process whose pgrp is `pgid` and whose state is not Z or X
 * (zombies do not count: PID 1 of a container may never reap orphans). `kill(-pgid, 0)` answers first
 * (ESRCH: no member at all); only an existing group costs a /proc scan, and where /proc cannot be
 * listed the group counts as alive. Throws RangeError for an unsafe pgid (see assertGroupId).
 */
export function isGroupAlive(pgid: number): boolean {
  if (signalGroup(pgid, 0) === "gone") return false;
  const members = listLiveGroupMembers(pgid);
  return members === null || members.length > 0;
}

/**
 * Sends `signal` to every member of group `pgid` (0 only checks that the group exists). Returns "sent",
 * "gone" (ESRCH: no such group) or "denied" (EPERM: no member may be signalled by this user).
 * Throws RangeError for an unsafe pgid.
 */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): "sent" | "gone" | "denied" {
  assertGroupId(pgid);
  try {
    process.kill(-pgid, signal);
    return "sent";
  } catch (error) {
    const code = errorCode(error);
    if (code === "ESRCH") return "gone";
    if (code === "EPERM") return "denied";
    throw error;
  }
}

/** What terminateGroup achieved. `remaining` lists pids still alive when it gave up (normally empty). */
export interface GroupTermination {
  signalled: boolean;
  denied: boolean;
  remaining: number[];
}

/**
 * Terminates a whole process group (DESIGN.md "Subprocess skills": TERM, then KILL after the grace):
 * SIGTERM (+ SIGCONT so stopped members see it) to -pgid, polls (groupPollDelay) until no live member
 * remains, and after `graceMs` ms re-sends SIGKILL every GROUP_POLL_MS. Resolves once the group is gone, or
 * after KILL_WAIT_MS of SIGKILL with the pids that would not die (uninterruptible sleep, a set-uid
 * member). Throws RangeError for an unsafe pgid; never rejects otherwise.
 */
export async function terminateGroup(pgid: number, graceMs: number): Promise<GroupTermination> {
  if (!isGroupAlive(pgid)) return { signalled: false, denied: false, remaining: [] };
  const term = signalGroup(pgid, "SIGTERM");
  if (term === "gone") return { signalled: false, denied: false, remaining: [] };
  if (term === "denied") return { signalled: false, denied: true, remaining: remainingMembers(pgid) };
  signalGroup(pgid, "SIGCONT");
  const graceEnd = Date.now() + graceMs;
  for (let attempt = 0; Date.now() < graceEnd; attempt++) {
    await delay(Math.min(groupPollDelay(attempt), Math.max(1, graceEnd - Date.now())));
    if (!isGroupAlive(pgid)) return { signalled: true, denied: false, remaining: [] };
  }
  const killEnd = Date.now() + KILL_WAIT_MS;
  // Re-sent at every poll: a member forked between two signals must not survive.
  while (signalGroup(pgid, "SIGKILL") !== "gone" && Date.now() < killEnd) {
    await delay(GROUP_POLL_MS);
    if (!isGroupAlive(pgid)) return { signalled: true, denied: false, remaining: [] };
  }
  return { signalled: true, denied: false, remaining: remainingMembers(pgid) };
}

function remainingMembers(pgid: number): number[] {
  return isGroupAlive(pgid) ? (listLiveGroupMembers(pgid) ?? [pgid]) : [];
}

function errorCode(error: unknown): string | undefined {
  return error instanceof Error && "code" in error && typeof error.code === "string" ? error.code : undefined;
}

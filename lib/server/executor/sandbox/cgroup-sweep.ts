import path from "node:path";
import { KILL_WAIT_MS } from "../process-group";
import { listChildCgroups, removeCgroupDir } from "./cgroup-fs";
import { assertCgroupName, isRunOwnerAlive, readOwnCgroups, type OwnCgroups } from "./cgroup-placement";
import { killUntilEmpty, liveMembers, type CallCgroupDirs } from "./cgroup-signal";
import type { SandboxHost } from "./host-capabilities";

const HIERARCHIES = ["unified", "memory", "pids", "cpu", "freezer"] as const satisfies ReadonlyArray<keyof OwnCgroups>;

/** How long, in ms, a stale cgroup may stay busy after its processes were killed. */
const REMOVE_WAIT_MS = 2_000;

/**
 * Start-up cleanup (DESIGN.md "Workers and the sandbox": nothing of a call outlives it, also when the
 * worker was killed with -9): under `<own cgroup>/<cgroupName>/` in every hierarchy, each run folder
 * whose worker process is gone (isRunOwnerAlive false) has every call cgroup in it killed (atomically
 * where possible) and removed, then the run folder itself. Folders of live workers — this one, or
 * another worker using the same name — and folders that are not run folders are left alone. Looks in
 * every mounted hierarchy, not only those `host` uses now, so a changed configuration leaves nothing
 * behind. Resolves with the number of stale call cgroups removed; never rejects (what cannot be
 * removed is logged and left for the next start). Throws RangeError for an unsafe cgroupName.
 */
export async function sweepStaleCgroups(host: SandboxHost, cgroupName: string): Promise<number> {
  assertCgroupName(cgroupName, "cgroupName");
  const own = readOwnCgroups();
  const runs = new Set<string>();
  for (const hierarchy of HIERARCHIES) {
    const root = own[hierarchy];
    if (root === null) continue;
    for (const run of listChildCgroups(path.join(root, cgroupName))) {
      if (run !== host.cgroups.run && isRunOwnerAlive(run) === false) runs.add(run);
    }
  }
  let removed = 0;
  for (const run of runs) removed += await removeRun(own, cgroupName, run);
  return removed;
}

/**
 * Kills and removes every call cgroup of this worker process's run, then its run folder and the
 * `<cgroupName>` folder when no other run is left in it (worker shutdown; tests). Resolves with the
 * number of call cgroups removed; never rejects.
 */
export async function releaseCgroupRun(host: SandboxHost): Promise<number> {
  const own = readOwnCgroups();
  const removed = await removeRun(own, host.cgroups.name, host.cgroups.run);
  for (const hierarchy of HIERARCHIES) {
    const root = own[hierarchy];
    // Busy or not empty means another run still uses the folder: that is fine, it stays.
    if (root !== null && listChildCgroups(path.join(root, host.cgroups.name)).length === 0) await removeCgroupDir(path.join(root, host.cgroups.name), 0);
  }
  return removed;
}

async function removeRun(own: OwnCgroups, cgroupName: string, run: string): Promise<number> {
  const calls = new Set<string>();
  for (const hierarchy of HIERARCHIES) {
    const root = own[hierarchy];
    if (root !== null) for (const call of listChildCgroups(path.join(root, cgroupName, run))) calls.add(call);
  }
  for (const call of calls) {
    const dirs = Object.fromEntries(
      HIERARCHIES.map((hierarchy) => {
        const root = own[hierarchy];
        return [hierarchy, root === null ? null : path.join(root, cgroupName, run, call)];
      }),
    ) as unknown as CallCgroupDirs;
    const survivors = liveMembers(dirs).length === 0 ? [] : await killUntilEmpty(dirs, KILL_WAIT_MS);
    if (survivors.length > 0) console.error(`sandbox: stale call cgroup ${run}/${call} still holds ${survivors.join(", ")}`);
    for (const dir of Object.values(dirs)) if (dir !== null) await removeCgroupDir(dir, REMOVE_WAIT_MS);
  }
  for (const hierarchy of HIERARCHIES) {
    const root = own[hierarchy];
    if (root !== null && !(await removeCgroupDir(path.join(root, cgroupName, run), REMOVE_WAIT_MS))) {
      console.error(`sandbox: cannot remove stale cgroup ${path.join(root, cgroupName, run)}`);
    }
  }
  return calls.size;
}

import { existsSync, mkdirSync, readFileSync, readdirSync, rmdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { isLiveProcess, readProcStat } from "../proc-stat";

/** How often, in ms, cgroup state is polled while waiting for the kernel. */
export const CGROUP_POLL_MS = 10;

/** The text of a cgroup control file, trimmed; null when it does not exist or cannot be read. */
export function readControl(dir: string, file: string): string | null {
  try {
    return readFileSync(path.join(dir, file), "utf8").trim();
  } catch {
    return null;
  }
}

/** Writes `value` to a control file. Throws the kernel's error (EINVAL, EBUSY, EACCES, ENOENT). */
export function writeControl(dir: string, file: string, value: string): void {
  writeFileSync(path.join(dir, file), value);
}

/** True when the control file exists in `dir` (a controller is attached, a feature such as cgroup.kill is there). */
export function hasControl(dir: string, file: string): boolean {
  return existsSync(path.join(dir, file));
}

/** Creates `dir` and its missing parents (cgroupfs makes each a cgroup). Throws on failure. */
export function makeCgroupDir(dir: string): void {
  mkdirSync(dir, { recursive: true });
}

/** Names of the child cgroups of `dir`; [] when it does not exist. */
export function listChildCgroups(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
  } catch {
    return [];
  }
}

/**
 * The live processes of cgroup `dir` (`cgroup.procs`, pids of our PID namespace; live as isLiveProcess
 * says, so also a zombie leader whose threads run);
 * [] when the cgroup does not exist.
 */
export function listLiveCgroupPids(dir: string): number[] {
  const text = readControl(dir, "cgroup.procs");
  if (text === null || text === "") return [];
  return text
    .split("\n")
    .map(Number)
    .filter((pid) => Number.isInteger(pid) && pid > 0)
    .filter((pid) => {
      const stat = readProcStat(pid);
      return stat !== null && isLiveProcess(stat);
    });
}

/**
 * Removes cgroup `dir` (rmdir; a missing one counts as removed), retrying on EBUSY for up to
 * `timeoutMs`: the kernel may still be tearing down the last exited task. Resolves true when gone,
 * false when it was still busy or could not be removed; never rejects.
 */
export async function removeCgroupDir(dir: string, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    try {
      rmdirSync(dir);
      return true;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT") return true;
      if ((code !== "EBUSY" && code !== "ENOTEMPTY") || Date.now() >= end) return false;
    }
    await delay(CGROUP_POLL_MS);
  }
}

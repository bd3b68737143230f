import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { readProcStat } from "./proc-stat";

/**
 * What identifies a process beyond its pid, recorded with a running call so that a later console can
 * tell whether a process group is still the one it started (DESIGN.md "Subprocess skills": a starting
 * console kills the process group of an interrupted call if it still exists).
 * `bootId` is /proc/sys/kernel/random/boot_id; `procStart` is field 22 (starttime, clock ticks since
 * boot) of /proc/<pid>/stat. Both are null where /proc does not provide them.
 */
export interface ProcessIdentity {
  host: string;
  bootId: string | null;
  procStart: string | null;
}

let bootId: string | null | undefined;

/** The current boot's id, or null when /proc does not provide it (read once: it is the same until the next boot). */
export function readBootId(): string | null {
  if (bootId !== undefined) return bootId;
  try {
    bootId = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim() || null;
  } catch {
    bootId = null;
  }
  return bootId;
}

/**
 * Identity of process `pid` on this host now: host name, boot id and the process's start time.
 * `procStart` is null when the process does not exist (or /proc is unavailable). Never throws.
 */
export function readProcessIdentity(pid: number): ProcessIdentity {
  return { host: hostname(), bootId: readBootId(), procStart: readProcStat(pid)?.startTime ?? null };
}

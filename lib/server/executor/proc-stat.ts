import { readFileSync, readdirSync } from "node:fs";

/** The fields of `/proc/<pid>/stat` the executor uses. */
export interface ProcStat {
  pid: number;
  /** One-letter state: R, S, D, T, Z (zombie), X (dead), … */
  state: string;
  /** Process group id (field 5, `pgrp`). */
  pgrp: number;
  /** Session id (field 6, `session`). */
  session: number;
  /** Start time in clock ticks since boot (field 22, `starttime`), kept as text: it identifies, never computes. */
  startTime: string;
}

/**
 * Parses the text of a `/proc/<pid>/stat` file. The command name (field 2) may hold spaces and
 * parentheses, so fields are counted from the last `)`. Returns null when the text is not a stat line.
 */
export function parseProcStat(text: string): ProcStat | null {
  const open = text.indexOf("(");
  const close = text.lastIndexOf(")");
  if (open < 1 || close < open) return null;
  const pid = Number(text.slice(0, open).trim());
  // After ")" come fields 3 (state), 4 (ppid), 5 (pgrp), 6 (session) … 22 (starttime).
  const rest = text.slice(close + 1).trim().split(/\s+/);
  const state = rest[0];
  const pgrp = Number(rest[2]);
  const session = Number(rest[3]);
  const startTime = rest[19];
  if (!Number.isInteger(pid) || state === undefined || !Number.isInteger(pgrp) || !Number.isInteger(session) || startTime === undefined) return null;
  return { pid, state, pgrp, session, startTime };
}

/** Reads and parses `/proc/<pid>/stat`. Returns null when the process does not exist or /proc is unreadable. */
export function readProcStat(pid: number): ProcStat | null {
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return null;
  }
}

/** True for a process that still runs: zombies (Z) and dead entries (X) only wait to be reaped. */
export function isLiveState(state: string): boolean {
  return state !== "Z" && state !== "X";
}

/**
 * True when a thread of thread group `tgid` still runs: one of /proc/<tgid>/task/<tid>/stat is not Z
 * or X. False when the group is gone or /proc cannot be read.
 */
export function hasLiveThread(tgid: number): boolean {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${tgid}/task`);
  } catch {
    return false;
  }
  return tids.some((tid) => {
    try {
      const stat = parseProcStat(readFileSync(`/proc/${tgid}/task/${tid}/stat`, "utf8"));
      return stat !== null && isLiveState(stat.state);
    } catch {
      return false;
    }
  });
}

/**
 * True while the process `stat` describes still runs code. Its own state is not enough: a leader that
 * ended with exit(2) alone (not exit_group) shows Z while its other threads run on, and counting it
 * as gone let such a process of a call outlive the call, its cgroup's removal and the next worker's
 * sweep. A signal to its pid still reaches every thread.
 */
export function isLiveProcess(stat: ProcStat): boolean {
  return isLiveState(stat.state) || hasLiveThread(stat.pid);
}

/**
 * The stat of every live process (isLiveProcess) whose process group is `pgid`, found by scanning /proc.
 * Returns null when /proc cannot be listed.
 */
export function listLiveGroupMemberStats(pgid: number): ProcStat[] | null {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return null;
  }
  const members: ProcStat[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readProcStat(Number(entry));
    if (stat !== null && stat.pgrp === pgid && isLiveProcess(stat)) members.push(stat);
  }
  return members;
}

/**
 * Pids of the live processes (isLiveProcess) whose process group is `pgid`, found by scanning /proc.
 * Returns null when /proc cannot be listed (the caller then falls back to `kill(-pgid, 0)`).
 */
export function listLiveGroupMembers(pgid: number): number[] | null {
  return listLiveGroupMemberStats(pgid)?.map((stat) => stat.pid) ?? null;
}

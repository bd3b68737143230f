import { chmodSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { afterEach } from "vitest";
import { isGroupAlive, startProcess, type ProcessOutcome, type ProcessSpec, type RunningProcess } from "@/lib/server/executor";

/** A PATH for fixture scripts (children get no environment unless a test gives one). */
export const PATH_ENV = { PATH: "/usr/bin:/bin" };

const tempDirs: string[] = [];
const startedGroups: number[] = [];

afterEach(() => {
  // Safety net only: every test asserts its groups are gone; this keeps a failing test from leaking.
  for (const pgid of startedGroups.splice(0)) {
    if (!isGroupAlive(pgid)) continue;
    try {
      process.kill(-pgid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh real directory (realpath'd), removed after the test. */
export function makeTempDir(): string {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), "executor-test-")));
  tempDirs.push(dir);
  return dir;
}

/** Writes an executable bash script `name` in `dir` and returns its absolute path. */
export function writeScript(dir: string, name: string, body: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, `#!/bin/bash\n${body}`);
  chmodSync(file, 0o755);
  return file;
}

/** A spec with short, test-friendly limits; `overrides` wins. */
export function specFor(dir: string, overrides: Partial<ProcessSpec> & Pick<ProcessSpec, "command">): ProcessSpec {
  return {
    args: [],
    cwd: dir,
    env: PATH_ENV,
    stdin: "{}",
    timeoutMs: 5000,
    killGraceMs: 200,
    exitDrainMs: 200,
    stdoutLimitBytes: 64 * 1024,
    stderrLimitBytes: 64 * 1024,
    ...overrides,
  };
}

/** What a test saw of one run, in the order the hooks were called. */
export interface Recorded {
  running: RunningProcess;
  events: string[];
  lines: string[];
}

/** Starts a process recording every hook call; `onLine` lets a test react to a line as it arrives. */
export function start(spec: ProcessSpec, onLine?: (line: string, running: RunningProcess) => void): Recorded {
  const events: string[] = [];
  const lines: string[] = [];
  let running: RunningProcess | null = null;
  running = startProcess(spec, {
    onSpawn: ({ pid, pgid }) => events.push(`spawn pid=${pid === pgid ? "pgid" : "other"}`),
    onStderrLine: (line) => {
      events.push(`line:${line}`);
      lines.push(line);
      if (running && onLine) onLine(line, running);
    },
    onStderrTruncated: (kept) => events.push(`truncated:${kept}`),
  });
  if (running.pgid !== null) startedGroups.push(running.pgid);
  return { running, events, lines };
}

/** Runs a process to its outcome. */
export async function run(spec: ProcessSpec): Promise<ProcessOutcome & { lines: string[]; events: string[] }> {
  const { running, events, lines } = start(spec);
  return { ...(await running.done), lines, events };
}

/** True while `pid` exists and is not a zombie (an unreaped orphan counts as dead). */
export function isAlive(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return false;
  }
  const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
  return state !== "Z" && state !== "X";
}

/** Reads a pid a fixture wrote to `file`. */
export function readPid(file: string): number {
  const pid = Number(readFileSync(file, "utf8").trim());
  if (!Number.isInteger(pid) || pid <= 1) throw new Error(`no pid in ${file}`);
  return pid;
}

/** Polls (25 ms) until `check` holds, failing after `timeoutMs`: for conditions with no event to await. */
export async function waitUntil(check: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await delay(25);
  }
}

/** Polls until the pid file `file` holds a whole pid (> 1): a file that just appeared may still be empty. */
export async function waitForPid(file: string): Promise<number> {
  let pid = 0;
  await waitUntil(() => {
    try {
      pid = readPid(file);
      return true;
    } catch {
      return false;
    }
  }, `a pid in ${file}`);
  return pid;
}

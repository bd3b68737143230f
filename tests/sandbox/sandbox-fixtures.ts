import { chmodSync, closeSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { startProcess, type ProcessOutcome, type ProcessSpec, type RunningProcess } from "@/lib/server/executor";
import {
  CallCgroup,
  DEFAULT_SANDBOX_DECLARATION,
  buildSandboxedCommand,
  closeInheritableFds,
  detectSandboxHost,
  openBindFd,
  type SandboxDeclaration,
  type SandboxHost,
  type SandboxLimits,
  type SandboxRequest,
} from "@/lib/server/executor/sandbox";

/** The cgroup folder the sandbox tests use; each test process gets its own run folder under it. */
export const TEST_CGROUP_NAME = "sandbox-tests";

export const DEFAULT_LIMITS: SandboxLimits = { memoryMb: 1024, pids: 256, cpu: null };

/** The sandbox's private home in every test request. */
export const HOME = "/home/skill";

// Whatever started vitest may have left descriptors open without close-on-exec; a worker closes them at start too.
closeInheritableFds();

/**
 * Detects the real host as a root worker with SKILL_SANDBOX=bwrap and uid 65534 would; `preferKill`
 * "cgroup-v2" kills by cgroup.kill where the worker would use the v1 freezer (SandboxHostOptions).
 */
export function detectTestHost(limits: SandboxLimits = DEFAULT_LIMITS, preferKill?: "cgroup-v2"): Promise<SandboxHost> {
  return detectSandboxHost({ mode: "bwrap", uid: 65534, limits, cgroupName: TEST_CGROUP_NAME, ...(preferKill ? { preferKill } : {}) });
}

/**
 * A fresh real folder, realpath'd and world-readable (the sandbox runs as nobody), under `base`
 * (/var/tmp by default: outside the sandbox's own /tmp, so what the sandbox may see of it depends
 * only on binds and masks). The caller removes it with removeTempDirs.
 */
export function makeTempDir(dirs: string[], base = "/var/tmp"): string {
  const dir = realpathSync(mkdtempSync(path.join(base, "sandbox-test-")));
  chmodSync(dir, 0o755);
  dirs.push(dir);
  return dir;
}

/** Removes the folders makeTempDir made (files the sandbox wrote as nobody included). */
export function removeTempDirs(dirs: string[]): void {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** Writes `file` (creating its folder) with `mode`; returns its path. */
export function writeFile(file: string, text: string, mode = 0o644): string {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o755 });
  writeFileSync(file, text);
  chmodSync(file, mode);
  return file;
}

/**
 * A fake console install: its folder (hidden), with `data/auth-secret` and `data/console.db`, a skill
 * root holding the skill `tools/probe` (with run.sh and data.txt) and a sibling skill `tools/other`
 * (with secret.txt). Folders are 0755, files 0644, so only binds and masks decide what is visible.
 */
export function makeConsoleFixture(dirs: string[]): { console: string; skill: string; sibling: string; secret: string; database: string } {
  const root = makeTempDir(dirs);
  const consoleDir = path.join(root, "console");
  const skill = path.join(consoleDir, "skills", "tools", "probe");
  const sibling = path.join(consoleDir, "skills", "tools", "other");
  const secret = writeFile(path.join(consoleDir, "data", "auth-secret"), "auth-secret-value\n");
  const database = writeFile(path.join(consoleDir, "data", "console.db"), "SQLite format 3\n");
  writeFile(path.join(skill, "data.txt"), "skill data\n");
  writeFile(path.join(sibling, "secret.txt"), "sibling secret\n");
  for (const dir of [consoleDir, path.join(consoleDir, "skills"), path.join(consoleDir, "skills", "tools"), skill, sibling, path.join(consoleDir, "data")]) chmodSync(dir, 0o755);
  return { console: consoleDir, skill, sibling, secret, database };
}

/** A declaration: the default with `overrides`. */
export function declare(overrides: Partial<SandboxDeclaration> = {}): SandboxDeclaration {
  return { ...DEFAULT_SANDBOX_DECLARATION, read: [], write: [], devices: [], ...overrides };
}

/** What one sandboxed run gave. */
export interface SandboxRun {
  outcome: ProcessOutcome;
  /** stderr lines, in order. */
  lines: string[];
  limitHit: string | null;
  running: RunningProcess;
  /** The host processes whose command line held `SandboxRunOptions.watch`, listed once the run ended and before its cgroup was removed (remove() kills leftovers). */
  leftAfterRun: number[];
}

/** How runSandboxed runs one call; everything but `host` and `request` has a test default. */
export interface SandboxRunOptions {
  host: SandboxHost;
  /** `allowedRoots` left out: null (no allow-list cap, as for a bundled skill). */
  request: Omit<SandboxRequest, "binds" | "allowedRoots"> & { binds?: Array<{ path: string; target: string }>; allowedRoots?: readonly string[] | null };
  limits?: SandboxLimits;
  timeoutMs?: number;
  killGraceMs?: number;
  /** Left out: the run gets no containment (to show what the cgroup is for). */
  withContainment?: boolean;
  onLine?: (line: string, running: RunningProcess, cgroup: CallCgroup) => void;
  /** A command-line marker to look for on the host when the run has ended (see SandboxRun.leftAfterRun). */
  watch?: string;
  stdin?: string;
  /** Runs after the command is built and before it is spawned: where a path swap races the check. */
  beforeSpawn?: () => void;
}

let callCounter = 0;

/**
 * Runs one call as a worker would: CallCgroup.create → buildSandboxedCommand (binds opened with
 * openBindFd) → wrapCommand → startProcess with extraFds and the containment → limitHit → remove.
 * Closes the bind descriptors after spawn and always removes the cgroup.
 */
export async function runSandboxed(options: SandboxRunOptions): Promise<SandboxRun> {
  const limits = options.limits ?? DEFAULT_LIMITS;
  const cgroup = await CallCgroup.create(options.host, `call-${process.pid}-${++callCounter}`, limits);
  const fds = (options.request.binds ?? []).map((bind) => ({ fd: openBindFd(bind.path), target: bind.target }));
  try {
    const built = buildSandboxedCommand(options.host, { allowedRoots: null, ...options.request, binds: fds });
    options.beforeSpawn?.();
    const wrapped = cgroup.wrapCommand(built);
    const lines: string[] = [];
    const spec: ProcessSpec = {
      command: wrapped.command,
      args: wrapped.args,
      cwd: "/",
      env: built.env,
      stdin: options.stdin ?? "",
      timeoutMs: options.timeoutMs ?? 10_000,
      killGraceMs: options.killGraceMs ?? 200,
      exitDrainMs: 200,
      stdoutLimitBytes: 1024 * 1024,
      stderrLimitBytes: 1024 * 1024,
      extraFds: built.extraFds,
      ...(options.withContainment === false ? {} : { containment: cgroup.containment() }),
    };
    let running: RunningProcess | null = null;
    running = startProcess(spec, {
      onStderrLine: (line) => {
        lines.push(line);
        if (running !== null) options.onLine?.(line, running, cgroup);
      },
    });
    for (const { fd } of fds.splice(0)) closeSync(fd);
    for (const fd of built.openedFds) closeSync(fd);
    const outcome = await running.done;
    const leftAfterRun = options.watch === undefined ? [] : await processesWith(options.watch);
    return { outcome, lines, limitHit: await cgroup.limitHit(), running, leftAfterRun };
  } finally {
    for (const { fd } of fds) closeSync(fd);
    if (options.withContainment !== false) await cgroup.remove();
    else leftCgroups.push(cgroup);
  }
}

/** Cgroups of runs without containment, removed (with what they still hold) by removeLeftCgroups. */
const leftCgroups: CallCgroup[] = [];

/** Kills and removes the cgroups of runs made without containment. */
export async function removeLeftCgroups(): Promise<void> {
  for (const cgroup of leftCgroups.splice(0)) await cgroup.remove();
}

/** The stdout lines of a run, without the trailing empty one. */
export function stdoutLines(run: SandboxRun): string[] {
  return run.outcome.stdout.split("\n").filter((line) => line !== "");
}

/** Pids of host processes whose `ps -eo pid,args` line contains `marker` (ps run through the executor). */
export async function processesWith(marker: string): Promise<number[]> {
  const outcome = await startProcess(
    { command: "/usr/bin/ps", args: ["-eo", "pid,args"], cwd: "/", env: {}, stdin: "", timeoutMs: 10_000, killGraceMs: 100, exitDrainMs: 100, stdoutLimitBytes: 8 * 1024 * 1024, stderrLimitBytes: 4096 },
    { onStderrLine: () => undefined },
  ).done;
  if (outcome.exitCode !== 0) throw new Error(`ps failed: ${outcome.error ?? outcome.exitCode}`);
  return outcome.stdout
    .split("\n")
    .filter((line) => line.includes(marker) && !line.includes("/usr/bin/ps"))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

/** Polls (25 ms) until `check` holds; throws after `timeoutMs` naming `what`. */
export async function waitUntil(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await delay(25);
  }
}

/** True when a path exists on the host (lstat-free: for files the sandbox may have created). */
export function existsOnHost(file: string): boolean {
  return existsSync(file);
}

/** A marker unique to this test run, for process arguments and file names. */
export function uniqueMarker(): string {
  return `${process.pid}${Date.now() % 100000}${Math.floor(Math.random() * 1000)}`;
}

import { spawn, type ChildProcess } from "node:child_process";
import type { Socket } from "node:net";
import type { ChildLauncher, LaunchRequest, SpawnedChild } from "./process-types";

/**
 * The launcher's program (run as `node -e`, CommonJS, node built-ins only). It waits for `spawn`
 * messages on its IPC channel and answers each with the child's stdout and stderr pipes (sent as
 * handles, so the bytes go straight to the worker), then `spawned` with the pid, later `exit` with the
 * code and signal — or `failed` with the errno error. Rules it keeps:
 * - it never reads the pipes: reading stops synchronously after the spawn, before its event loop could
 *   see an end of file, so a child that writes and exits at once loses nothing;
 * - the child's extra descriptors are the worker's own, reopened through /proc/<worker>/fd/N with
 *   O_PATH: a magic link names the very file the worker opened and checked, never a path resolved
 *   again (DESIGN.md "Workers and the sandbox": bound by descriptor); they are closed once the child
 *   holds its copies;
 * - descriptors it inherited without close-on-exec are closed at its start (none should be: the worker
 *   closed its own, and Node passes only stdio and the channel, which it marks close-on-exec);
 * - SIGTERM, SIGINT and SIGHUP are ignored (a signal to the worker's process group must not orphan the
 *   calls: the worker stops them and reports); it ends when the channel closes — the worker stopped or
 *   was killed — after SIGKILLing the process group of every child still running (bwrap's
 *   --die-with-parent ends a sandbox with it anyway; this covers SKILL_SANDBOX=none).
 */
const LAUNCHER_SOURCE = String.raw`
"use strict";
const { spawn } = require("node:child_process");
const fs = require("node:fs");
const O_PATH = 0o10000000, O_CLOEXEC = 0o2000000;
const worker = process.ppid;
process.title = "skill-worker-launcher";
for (const name of fs.readdirSync("/proc/self/fd")) {
  const fd = Number(name);
  if (!(fd > 2)) continue;
  try {
    const flags = parseInt(/^flags:\s+([0-7]+)$/m.exec(fs.readFileSync("/proc/self/fdinfo/" + fd, "utf8"))[1], 8);
    if ((flags & O_CLOEXEC) === 0) fs.closeSync(fd);
  } catch {}
}
for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(signal, () => {});
const children = new Map();
// The cgroups of calls started here, kept past their first process's exit (what it left behind may
// still run); forgotten once the worker removed them.
const cgroups = new Set();
const exists = (dir) => { try { fs.statSync(dir); return true; } catch { return false; } };
const killCgroup = (paths) => {
  if (paths.unified) { try { fs.writeFileSync(paths.unified + "/cgroup.kill", "1"); return; } catch {} }
  if (!paths.freezer) return;
  try {
    fs.writeFileSync(paths.freezer + "/freezer.state", "FROZEN");
    for (const pid of fs.readFileSync(paths.freezer + "/cgroup.procs", "utf8").split("\n")) { if (Number(pid) > 0) { try { process.kill(Number(pid), "SIGKILL"); } catch {} } }
    fs.writeFileSync(paths.freezer + "/freezer.state", "THAWED");
  } catch {}
};
process.on("disconnect", () => {
  for (const pid of children.values()) { try { process.kill(-pid, "SIGKILL"); } catch {} }
  for (const paths of cgroups) killCgroup(paths);
  process.exit(0);
});
const errorOf = (error) => ({ code: error.code, errno: error.errno, syscall: error.syscall, path: error.path, message: String(error.message) });
const send = (message, handle) => { if (process.connected) process.send(message, handle); };
process.on("message", (message) => {
  if (!message || message.type !== "spawn") return;
  const { id } = message;
  const opened = [];
  const closeOpened = () => { for (const fd of opened.splice(0)) { try { fs.closeSync(fd); } catch {} } };
  let child;
  for (const paths of [...cgroups]) if (!exists(paths.unified || paths.freezer)) cgroups.delete(paths);
  // A worker that died leaves this process to another parent: its pid, and so /proc/<pid>/fd, may
  // be some other process's by now.
  if (process.ppid !== worker) return send({ type: "failed", id, error: { message: "the worker that started the process launcher is gone" } });
  if (message.killOnLoss && (message.killOnLoss.unified || message.killOnLoss.freezer)) cgroups.add(message.killOnLoss);
  try {
    for (const fd of message.extraFds) opened.push(fs.openSync("/proc/" + worker + "/fd/" + fd, O_PATH));
    child = spawn(message.command, message.args, { cwd: message.cwd, env: message.env, shell: false, detached: true, stdio: ["pipe", "pipe", "pipe", ...opened] });
  } catch (error) {
    closeOpened();
    return send({ type: "failed", id, error: errorOf(error) });
  }
  closeOpened();
  if (child.pid === undefined) return child.once("error", (error) => send({ type: "failed", id, error: errorOf(error) }));
  child.on("error", () => {});
  const pipes = [child.stdout, child.stderr];
  if (pipes.some((pipe) => !pipe._handle || typeof pipe._handle.readStop !== "function")) {
    try { process.kill(-child.pid, "SIGKILL"); } catch {}
    return send({ type: "failed", id, error: { message: "this Node.js cannot hand a child's pipes over unread (no readStop)" } });
  }
  for (const pipe of pipes) pipe._handle.readStop();
  child.stdin.on("error", () => {});
  child.stdin.end(message.stdin);
  children.set(id, child.pid);
  child.once("exit", (code, signal) => {
    children.delete(id);
    send({ type: "exit", id, code, signal });
  });
  send({ type: "pipe", id, stream: "stdout" }, child.stdout);
  send({ type: "pipe", id, stream: "stderr" }, child.stderr);
  send({ type: "spawned", id, pid: child.pid });
});
`;

/**
 * Longest wait, in ms, for the launcher to answer a spawn (a fork takes milliseconds): past it the
 * launcher counts as hung and is killed, which fails this launch and stops the calls it ran, so that
 * no call waits for a spawn forever and a cancel takes effect.
 */
export const LAUNCH_ANSWER_MS = 10_000;

/** Longest wait, in ms, for the launcher to exit once its channel closed (close()); then it is SIGKILLed. */
export const LAUNCHER_CLOSE_MS = 2_000;

/** What the launcher answers on its channel (LAUNCHER_SOURCE). */
type LauncherMessage =
  | { type: "pipe"; id: number; stream: "stdout" | "stderr" }
  | { type: "spawned"; id: number; pid: number }
  | { type: "exit"; id: number; code: number | null; signal: string | null }
  | { type: "failed"; id: number; error: { code?: string; errno?: number; syscall?: string; path?: string; message: string } };

type ChildExit = { code: number | null; signal: string | null };

interface PendingLaunch {
  resolve(child: SpawnedChild): void;
  reject(error: Error): void;
  stdout: Socket | null;
  stderr: Socket | null;
  /** Set once `spawned` came: the child runs and waits for its exit. */
  child: SpawnedChild | null;
  exited: Promise<ChildExit>;
  settleExit: (exit: ChildExit) => void;
}

/**
 * The worker's process launcher (issue 9 point 6): a small Node process of its own (~40 MiB) that
 * forks every call's process, so the worker — which holds every skill's plan and grows with them —
 * never forks. A fork copies the page tables of the process that forks, on that process's event loop:
 * ~40 µs per MiB it has touched (measured here: `/bin/true` took 1.7 ms from a 55 MiB process, 10 ms
 * from 243 MiB, 16.6 ms from 384 MiB), which made the worker's spawns 10–20 ms slower than the same
 * spawn from a small process and, at 16 calls at once, its main thread mostly a forking loop.
 *
 * Started on the first launch (and again after it died); `onLost` is told when it dies while children
 * it started still run (their `exited` then resolves with code and signal null: their exit status is
 * lost with it; a sandboxed child dies with it through bwrap's --die-with-parent). The launcher ends
 * when this process closes the channel (close()) or dies.
 */
export class ProcessLauncher implements ChildLauncher {
  private child: ChildProcess | null = null;
  private readonly pending = new Map<number, PendingLaunch>();
  private nextId = 1;

  /** `onLost(reason)` is called when the launcher dies with children of its running; it is restarted on the next launch. */
  constructor(private readonly onLost: (reason: string) => void = () => undefined) {}

  /** The launcher's pid while it runs (logs, the benchmark's CPU accounting), else null. */
  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  /** Starts the launcher now (else the first launch does, and waits for Node's start-up, ~40 ms). */
  start(): void {
    this.running();
  }

  /** Starts `request` in the launcher (ChildLauncher.launch). Rejects when it could not start, with the launcher's errno error. */
  launch(request: LaunchRequest): Promise<SpawnedChild> {
    const launcher = this.running();
    const id = this.nextId++;
    return new Promise<SpawnedChild>((resolve, reject) => {
      let settleExit: PendingLaunch["settleExit"] = () => undefined;
      const exited = new Promise<ChildExit>((resolveExit) => (settleExit = resolveExit));
      // Cleared by the launch's resolve or reject: it fires only for a spawn still unanswered.
      const timer = setTimeout(() => {
        this.fail(id, new Error(`the process launcher did not answer within ${LAUNCH_ANSWER_MS / 1000} s; it was stopped`));
        launcher.kill("SIGKILL");
      }, LAUNCH_ANSWER_MS);
      const settled = <T>(settle: (value: T) => void) => (value: T) => {
        clearTimeout(timer);
        settle(value);
      };
      this.pending.set(id, { resolve: settled(resolve), reject: settled(reject), stdout: null, stderr: null, child: null, exited, settleExit });
      launcher.send({ type: "spawn", id, command: request.command, args: request.args, cwd: request.cwd, env: request.env, stdin: request.stdin, extraFds: request.extraFds, killOnLoss: request.killOnLoss }, (error) => {
        if (error) this.fail(id, new Error(`the process launcher did not take the call's process: ${error.message}`));
      });
    });
  }

  /**
   * Closes the channel: the launcher kills what still runs of its children and exits. One that has not
   * exited after LAUNCHER_CLOSE_MS (hung, stopped) is SIGKILLed. Resolves once it is gone.
   */
  async close(): Promise<void> {
    const child = this.child;
    if (!child) return;
    const gone = new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once("exit", () => resolve())));
    if (child.connected) child.disconnect();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), LAUNCHER_CLOSE_MS)));
    if ((await Promise.race([gone, late])) === "late") {
      child.kill("SIGKILL");
      await gone;
    }
    clearTimeout(timer);
  }

  private running(): ChildProcess {
    if (this.child && this.child.connected) return this.child;
    const child = spawn(process.execPath, ["-e", LAUNCHER_SOURCE], { stdio: ["ignore", "inherit", "inherit", "ipc"], env: {} as NodeJS.ProcessEnv, serialization: "json" }) as ChildProcess;
    this.child = child;
    child.on("message", (message: LauncherMessage, handle?: Socket) => this.receive(message, handle));
    child.on("error", (error) => console.error("executor: the process launcher failed:", error));
    child.once("exit", (code, signal) => this.lost(child, `it exited with ${signal ?? `code ${code}`}`));
    return child;
  }

  private receive(message: LauncherMessage, handle: Socket | undefined): void {
    const pending = this.pending.get(message.id);
    if (!pending) {
      handle?.destroy();
      return;
    }
    if (message.type === "pipe") {
      if (handle) pending[message.stream] = handle;
    } else if (message.type === "spawned") {
      if (!pending.stdout || !pending.stderr) {
        // Never expected: the pipes come before `spawned` on the channel. The child cannot be read, so it is stopped.
        pending.stdout?.destroy();
        pending.stderr?.destroy();
        this.fail(message.id, new Error("the process launcher lost the call's pipes"));
        killGroup(message.pid);
        return;
      }
      pending.child = { pid: message.pid, stdin: null, stdout: pending.stdout, stderr: pending.stderr, exited: pending.exited };
      pending.resolve(pending.child);
    } else if (message.type === "exit") {
      this.pending.delete(message.id);
      pending.settleExit({ code: message.code, signal: message.signal });
    } else if (message.type === "failed") {
      this.fail(message.id, Object.assign(new Error(message.error.message), message.error));
    }
  }

  private fail(id: number, error: Error): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    if (pending.child) pending.settleExit({ code: null, signal: null });
    else pending.reject(error);
  }

  private lost(child: ChildProcess, why: string): void {
    if (this.child === child) this.child = null;
    // Told first, so that the calls it ran are stopped as such before their exits (unknown) settle.
    if ([...this.pending.values()].some((pending) => pending.child !== null)) this.onLost(`the worker's process launcher stopped (${why})`);
    for (const id of [...this.pending.keys()]) this.fail(id, new Error(`the process launcher stopped (${why})`));
  }
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}

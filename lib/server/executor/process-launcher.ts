import { spawn, type ChildProcess } from "node:child_process";
import { Readable } from "node:stream";
import type { ChildLauncher, LaunchRequest, SpawnedChild } from "./process-types";

/**
 * The launcher's program (run as `node -e`, CommonJS, node built-ins only). It waits for `spawn`
 * messages on its IPC channel and answers each with `spawned` and the pid, then the bytes the child
 * writes as `output` messages (base64, a chunk each, in the order read) and `end` when
 * a pipe closes, and `exit` with the code and signal — or `failed` with the errno error. Rules it keeps:
 * - it forwards the child's stdout and stderr rather than handing the pipes over: Node's channel sends
 *   one handle per round trip and holds every later message until the worker acknowledges it, so with
 *   16 calls at once each spawn's `spawned` waited ~55 ms (p50) behind other calls' pipes, measured;
 * - it forwards at most `forwardBytes` of each stream (the worker's limits) plus the chunk that crosses
 *   them, then reads and drops the rest, so a child flooding a pipe never fills the channel; a `close`
 *   from the worker (the call is over) closes both pipes (a writer left behind gets EPIPE);
 * - the child's extra descriptors are the worker's own, reopened through /proc/<worker>/fd/N as they
 *   were opened (O_PATH, or read-only: the empty data bwrap copies over a hidden file must be read, and
 *   an O_PATH descriptor cannot be): a magic link names the very file the worker opened and checked,
 *   never a path resolved again (DESIGN.md "Workers and the sandbox": bound by descriptor); they are
 *   closed once the child holds its copies;
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
// How to reopen the worker's descriptor fd: O_PATH when the worker opened it so (its flags in
// /proc/<worker>/fdinfo, octal), read-only otherwise.
function reopenFlags(fd) {
  const info = fs.readFileSync("/proc/" + worker + "/fdinfo/" + fd, "utf8");
  const flags = /^flags:\s*([0-7]+)$/m.exec(info);
  return flags && (parseInt(flags[1], 8) & O_PATH) === 0 ? fs.constants.O_RDONLY : O_PATH;
}
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
// Each running child's stdout and stderr pipes, by launch id, until both closed.
const pipes = new Map();
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
const send = (message) => { if (process.connected) process.send(message); };
process.on("message", (message) => {
  if (message && message.type === "close") {
    for (const pipe of pipes.get(message.id) || []) pipe.destroy();
    pipes.delete(message.id);
    return;
  }
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
    for (const fd of message.extraFds) opened.push(fs.openSync("/proc/" + worker + "/fd/" + fd, reopenFlags(fd)));
    child = spawn(message.command, message.args, { cwd: message.cwd, env: message.env, shell: false, detached: true, stdio: ["pipe", "pipe", "pipe", ...opened] });
  } catch (error) {
    closeOpened();
    return send({ type: "failed", id, error: errorOf(error) });
  }
  closeOpened();
  if (child.pid === undefined) return child.once("error", (error) => send({ type: "failed", id, error: errorOf(error) }));
  child.on("error", () => {});
  child.stdin.on("error", () => {});
  child.stdin.end(message.stdin);
  children.set(id, child.pid);
  child.once("exit", (code, signal) => {
    children.delete(id);
    send({ type: "exit", id, code, signal });
  });
  // Sent before any output: the pipes are read only from the next turn of the event loop on.
  send({ type: "spawned", id, pid: child.pid });
  const open = new Set(["stdout", "stderr"]);
  pipes.set(id, [child.stdout, child.stderr]);
  for (const stream of open) {
    const pipe = child[stream];
    const most = message.forwardBytes[stream];
    let forwarded = 0;
    pipe.on("error", () => {});
    pipe.on("data", (data) => {
      if (forwarded > most) return;
      forwarded += data.length;
      send({ type: "output", id, stream, data: data.toString("base64") });
    });
    pipe.on("close", () => {
      send({ type: "end", id, stream });
      open.delete(stream);
      if (open.size === 0) pipes.delete(id);
    });
  }
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
  | { type: "spawned"; id: number; pid: number }
  | { type: "output"; id: number; stream: "stdout" | "stderr"; data: string }
  | { type: "end"; id: number; stream: "stdout" | "stderr" }
  | { type: "exit"; id: number; code: number | null; signal: string | null }
  | { type: "failed"; id: number; error: { code?: string; errno?: number; syscall?: string; path?: string; message: string } };

type ChildExit = { code: number | null; signal: string | null };

interface PendingLaunch {
  resolve(child: SpawnedChild): void;
  reject(error: Error): void;
  /** Set once `spawned` came: the child runs and waits for its exit. */
  child: SpawnedChild | null;
  exited: Promise<ChildExit>;
  settleExit: (exit: ChildExit) => void;
  /** Gives up on the spawn within `ms` from now if it is still unanswered then (hurry). */
  hurry(ms: number): void;
}

/**
 * The worker's process launcher (issue 9 point 6): a small Node process of its own (~40 MiB) that
 * forks every call's process, so the worker — which holds every skill's plan and grows with them —
 * never forks. A fork copies the page tables of the process that forks, on that process's event loop:
 * ~40 µs per MiB it has touched (measured here: `/bin/true` took 1.7 ms from a 55 MiB process, 10 ms
 * from 243 MiB, 16.6 ms from 384 MiB), which made the worker's spawns 10–20 ms slower than the same
 * spawn from a small process and, at 16 calls at once, its main thread mostly a forking loop.
 *
 * A child's stdout and stderr reach this process as the launcher forwards them (LAUNCHER_SOURCE),
 * as Readable streams fed from its channel; destroying both (ProcessRun does, once the run is over)
 * has the launcher close the pipes.
 *
 * Started on the first launch (and again after it died); `onLost` is told when it dies while children
 * it started still run (their `exited` then resolves with code and signal null: their exit status is
 * lost with it, and so is output it had not forwarded yet; a sandboxed child dies with it through
 * bwrap's --die-with-parent). The launcher ends when this process closes the channel (close()) or dies.
 */
export class ProcessLauncher implements ChildLauncher {
  private child: ChildProcess | null = null;
  private readonly pending = new Map<number, PendingLaunch>();
  /** The streams of children whose output may still come, by launch id (see forwardedStream). */
  private readonly outputs = new Map<number, { stdout: Readable; stderr: Readable; closeSent: boolean }>();
  private nextId = 1;

  /**
   * `onLost(reason, pids)` is called when the launcher dies with children of its running (`pids`, their
   * process ids); it is restarted on the next launch.
   */
  constructor(private readonly onLost: (reason: string, pids: number[]) => void = () => undefined) {}

  /**
   * Gives the spawns not answered yet at most `ms` more (the worker is stopping): one still unanswered
   * then fails as hung, and the launcher is killed, as after LAUNCH_ANSWER_MS.
   */
  hurry(ms: number): void {
    for (const pending of this.pending.values()) if (pending.child === null) pending.hurry(ms);
  }

  /** Launches sent to the launcher and not answered yet (spawns it has still to make). */
  get unanswered(): number {
    let count = 0;
    for (const pending of this.pending.values()) if (pending.child === null) count++;
    return count;
  }

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
      const sentAt = performance.now();
      const giveUp = () => {
        const seconds = Number(((deadline - sentAt) / 1000).toFixed(1));
        this.fail(id, new Error(`the process launcher did not answer within ${seconds} s; it was stopped`));
        launcher.kill("SIGKILL");
      };
      // Cleared by the launch's resolve or reject: it fires only for a spawn still unanswered.
      let deadline = sentAt + LAUNCH_ANSWER_MS;
      let timer = setTimeout(giveUp, LAUNCH_ANSWER_MS);
      const hurry = (ms: number) => {
        if (performance.now() + ms >= deadline) return;
        deadline = performance.now() + ms;
        clearTimeout(timer);
        timer = setTimeout(giveUp, ms);
      };
      const settled = <T>(settle: (value: T) => void) => (value: T) => {
        clearTimeout(timer);
        settle(value);
      };
      this.pending.set(id, { resolve: settled(resolve), reject: settled(reject), child: null, exited, settleExit, hurry });
      launcher.send({ type: "spawn", id, command: request.command, args: request.args, cwd: request.cwd, env: request.env, stdin: request.stdin, extraFds: request.extraFds, killOnLoss: request.killOnLoss, forwardBytes: request.forwardBytes }, (error) => {
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
    child.on("message", (message: LauncherMessage) => this.receive(message));
    child.on("error", (error) => console.error("executor: the process launcher failed:", error));
    child.once("exit", (code, signal) => this.lost(child, `it exited with ${signal ?? `code ${code}`}`));
    return child;
  }

  private receive(message: LauncherMessage): void {
    if (message.type === "output" || message.type === "end") {
      // Output outlives the pending launch: it may still come after the exit, until the pipes close.
      const output = this.outputs.get(message.id)?.[message.stream];
      if (message.type === "output") output?.push(Buffer.from(message.data, "base64"));
      else output?.push(null);
      return;
    }
    const pending = this.pending.get(message.id);
    if (!pending) return;
    if (message.type === "spawned") {
      const outputs = { stdout: this.forwardedStream(message.id), stderr: this.forwardedStream(message.id), closeSent: false };
      this.outputs.set(message.id, outputs);
      pending.child = { pid: message.pid, stdin: null, stdout: outputs.stdout, stderr: outputs.stderr, exited: pending.exited };
      pending.resolve(pending.child);
    } else if (message.type === "exit") {
      this.pending.delete(message.id);
      pending.settleExit({ code: message.code, signal: message.signal });
    } else if (message.type === "failed") {
      this.fail(message.id, Object.assign(new Error(message.error.message), message.error));
    }
  }

  /**
   * One of a child's streams as the launcher forwards it: `output` messages pushed, ended by `end`.
   * Destroyed before its end (ProcessRun is done with the call), it asks the launcher to close both of
   * the child's pipes and forgets them.
   */
  private forwardedStream(id: number): Readable {
    const launcher = this;
    return new Readable({
      read: () => undefined,
      destroy(this: Readable, error, callback) {
        const outputs = launcher.outputs.get(id);
        if (outputs && !this.readableEnded && !outputs.closeSent) {
          outputs.closeSent = true;
          if (launcher.child?.connected) launcher.child.send({ type: "close", id });
        }
        if (outputs && [outputs.stdout, outputs.stderr].every((stream) => stream === this || stream.destroyed)) launcher.outputs.delete(id);
        callback(error);
      },
    });
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
    const pids = [...this.pending.values()].flatMap((pending) => (pending.child ? [pending.child.pid] : []));
    if (pids.length > 0) this.onLost(`the worker's process launcher stopped (${why})`, pids);
    for (const id of [...this.pending.keys()]) this.fail(id, new Error(`the process launcher stopped (${why})`));
    // What it had not forwarded yet is lost with it.
    const outputs = [...this.outputs.values()];
    this.outputs.clear();
    for (const { stdout, stderr } of outputs) for (const stream of [stdout, stderr]) stream.destroy();
  }
}


/**
 * Several process launchers used as one ChildLauncher (the worker's: LAUNCHERS of them). A launcher
 * makes one spawn at a time — its `spawn()` blocks its event loop for the fork and until the child has
 * exec'd, ~2 ms idle and 5–10 ms with both CPUs busy — so at 16 calls at once a spawn waited ~40 ms
 * (p50, measured) for the one before it; two launchers fork in parallel on two CPUs. Each launch goes
 * to the launcher with the fewest spawns not yet answered (the first on a tie). `onLost(reason, pids)`
 * names the children of the launcher that died, so only its calls are stopped.
 */
export class LauncherPool implements ChildLauncher {
  private readonly launchers: ProcessLauncher[];

  constructor(size: number, onLost: (reason: string, pids: number[]) => void = () => undefined) {
    this.launchers = Array.from({ length: Math.max(1, size) }, () => new ProcessLauncher(onLost));
  }

  /** The pids of the launchers that run now (logs, tests, the benchmark's CPU accounting). */
  get pids(): number[] {
    return this.launchers.flatMap((launcher) => (launcher.pid === null ? [] : [launcher.pid]));
  }

  /** Starts every launcher now (ProcessLauncher.start). */
  start(): void {
    for (const launcher of this.launchers) launcher.start();
  }

  /** Starts `request` in the least busy launcher (ChildLauncher.launch; ProcessLauncher.launch's errors). */
  launch(request: LaunchRequest): Promise<SpawnedChild> {
    let chosen = this.launchers[0]!;
    for (const launcher of this.launchers) if (launcher.unanswered < chosen.unanswered) chosen = launcher;
    return chosen.launch(request);
  }

  /** ProcessLauncher.hurry on every launcher. */
  hurry(ms: number): void {
    for (const launcher of this.launchers) launcher.hurry(ms);
  }

  /** Closes every launcher (ProcessLauncher.close); resolves once all are gone. */
  async close(): Promise<void> {
    await Promise.all(this.launchers.map((launcher) => launcher.close()));
  }
}

import type { Readable } from "node:stream";
import { setTimeout as delay } from "node:timers/promises";
import { BoundedBuffer } from "./bounded-buffer";
import { readProcessIdentity } from "./process-identity";
import { terminateGroup, type GroupTermination } from "./process-group";
import type { ProcessEnd, ProcessHooks, ProcessOutcome, ProcessSpec, RunningProcess, SpawnedChild } from "./process-types";
import { StderrLines } from "./stderr-lines";

/** setTimeout fires at once for delays above 2^31-1 ms, so longer timeouts are clamped to this. */
const MAX_TIMER_MS = 2 ** 31 - 1;

type StopReason = Exclude<ProcessEnd, "exited" | "spawn_failed">;

/**
 * One spawned process group, from spawn to its outcome (used by startProcess and launchProcess; the
 * first documents the rules). Takes the spec, the hooks, the spawned child, its pid (= pgid) and the spawn time from
 * performance.now(); wires the pipes and the timeout at construction and exposes the RunningProcess
 * as `handle`. Never throws.
 */
export class ProcessRun {
  readonly handle: RunningProcess;
  private readonly stdout: BoundedBuffer;
  private readonly stderr: StderrLines;
  private readonly exited: Promise<void>;
  private readonly pipesClosed: Promise<void>;
  private readonly stopRequested: Promise<void>;
  private requestStop: () => void = () => undefined;
  private exit: { code: number | null; signal: string | null } | null = null;
  private stopReason: StopReason | null = null;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly spec: ProcessSpec,
    hooks: ProcessHooks,
    private readonly child: SpawnedChild,
    private readonly pid: number,
    private readonly startedAt: number,
  ) {
    this.stdout = new BoundedBuffer(spec.stdoutLimitBytes);
    this.stderr = new StderrLines(
      spec.stderrLimitBytes,
      {
        onLine: (line, edges) => callHook("onStderrLine", () => hooks.onStderrLine(line, edges)),
        onTruncated: (kept, cause) => callHook("onStderrTruncated", () => hooks.onStderrTruncated?.(kept, cause)),
      },
      undefined,
      spec.stderrLineLimit,
    );
    this.stopRequested = new Promise((resolve) => (this.requestStop = resolve));
    this.exited = child.exited.then((exit) => {
      this.exit = exit;
    });
    const { stdin, stdout, stderr } = child;
    this.pipesClosed = Promise.all([closed(stdout), closed(stderr)]).then(() => undefined);
    stdout.on("data", (chunk: Buffer) => {
      if (!this.stdout.push(chunk)) this.stop("stdout_overflow");
    });
    stderr.on("data", (chunk: Buffer) => this.stderr.push(chunk));
    // The child may exit without reading its stdin: EPIPE here is normal and must not crash the console.
    for (const stream of [stdin, stdout, stderr]) stream?.on("error", () => undefined);
    stdin?.end(spec.stdin);

    this.timer = setTimeout(() => this.stop("timed_out"), Math.min(Math.max(spec.timeoutMs, 0), MAX_TIMER_MS));
    this.handle = { pid, pgid: pid, cancel: () => this.stop("cancelled"), done: this.run() };
    callHook("onSpawn", () => hooks.onSpawn?.({ pid, pgid: pid, identity: readProcessIdentity(pid) }));
  }

  /** Asks for the group to be terminated. After the child exited only an overflow still counts. */
  private stop(reason: StopReason): void {
    if (this.stopReason !== null) return;
    if (this.exit !== null && reason !== "stdout_overflow") return;
    this.stopReason = reason;
    clearTimeout(this.timer);
    this.requestStop();
  }

  private async run(): Promise<ProcessOutcome> {
    await Promise.race([this.exited, this.stopRequested]);
    clearTimeout(this.timer);
    if (this.stopReason === null) {
      // The child exited by itself: let what is left of its group finish writing, briefly.
      await Promise.race([this.pipesClosed, delay(this.spec.exitDrainMs), this.stopRequested]);
    }
    const termination = await terminateAll(this.pid, this.spec);
    const groupGoneAt = performance.now();
    if (termination.remaining.length > 0) await Promise.race([this.exited, delay(this.spec.exitDrainMs)]);
    else await this.exited;
    // Members are dead; only a process that left the group could still hold the pipes.
    await Promise.race([this.pipesClosed, delay(this.spec.exitDrainMs)]);
    this.child.stdout.destroy();
    this.child.stderr.destroy();
    this.stderr.end();
    return {
      end: this.stopReason ?? "exited",
      exitCode: this.exit?.code ?? null,
      signal: this.exit?.signal ?? null,
      stdout: this.stdout.text(),
      durationMs: Math.round(groupGoneAt - this.startedAt),
      error: survivorsMessage(this.pid, termination),
    };
  }
}

/**
 * Terminates whatever the containment holds first (a sandbox's cgroup: the skill gets its SIGTERM and
 * the grace before SIGKILL — signalling the outer bwrap first would make it die and SIGKILL the skill at
 * once through --die-with-parent), then the direct child's group; merges what survived.
 */
async function terminateAll(pgid: number, spec: ProcessSpec): Promise<GroupTermination> {
  let contained: { remaining: number[] } = { remaining: [] };
  if (spec.containment) {
    try {
      contained = await spec.containment.terminate(spec.killGraceMs);
    } catch (error) {
      console.error("executor: terminating the call's containment failed:", error);
    }
  }
  const group = await terminateGroup(pgid, spec.killGraceMs);
  return { ...group, remaining: [...new Set([...group.remaining, ...contained.remaining])] };
}

function survivorsMessage(pgid: number, termination: GroupTermination): string | null {
  if (termination.remaining.length === 0) return null;
  return `process group ${pgid} still has live members after SIGKILL: ${termination.remaining.join(", ")}`;
}

function closed(stream: Readable): Promise<void> {
  return new Promise((resolve) => {
    if (stream.closed) resolve();
    else stream.once("close", () => resolve());
  });
}

function callHook(name: string, call: () => void): void {
  try {
    call();
  } catch (error) {
    // A failing hook must not crash the console from inside a stream callback.
    console.error(`executor: ${name} hook threw`, error);
  }
}

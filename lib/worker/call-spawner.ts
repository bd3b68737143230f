import { fork, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { ProcessIdentity, ProcessOutcome, StderrTruncation } from "@/lib/server/executor";
import type { SandboxHost } from "@/lib/server/executor/sandbox/host-capabilities";
import type { FromSpawner, SpawnJob, ToSpawner } from "./spawner-protocol";

/** How long the spawner may take to start before the worker gives up on it, in ms. */
const SPAWNER_START_MS = 15_000;

/** What a call's process reports back through the spawner, as it happens. */
export interface SpawnHooks {
  onSpawn(info: { pid: number; pgid: number; identity: ProcessIdentity }): void;
  onStderrLine(line: string): void;
  onStderrTruncated(keptBytes: number, cause: StderrTruncation): void;
}

/** How a job ended: its process's outcome and the limit it hit, or why it never started, or that the spawner was lost. */
export type SpawnResult = { kind: "ended"; outcome: ProcessOutcome; limitHit: string | null } | { kind: "refused"; reason: string } | { kind: "lost"; reason: string };

interface Job {
  hooks: SpawnHooks;
  resolve(result: SpawnResult): void;
}

/** The worker bundle, which runs as the spawner with `--spawner` (this file bundled into it, or the sources beside it under vitest). */
function spawnerEntry(): string {
  const here = fileURLToPath(import.meta.url);
  return path.basename(here) === "worker.mjs" ? here : path.resolve(path.dirname(here), "../../.worker/worker.mjs");
}

/**
 * The worker's side of its spawner process (lib/worker/spawner-process.ts): forks it once
 * (`.worker/worker.mjs --spawner`, an empty environment but PATH, this process's stdout and stderr),
 * hands it the sandbox host, then runs each call's process through it (run) and relays the
 * spawn, the stderr lines and the end to the call's hooks. If the spawner dies, every call it held
 * resolves `lost` (their sandboxes die with it: bwrap --die-with-parent) and the next call starts a
 * new one. stop() closes the channel: the spawner stops what still runs and exits.
 */
export class CallSpawner {
  private child: ChildProcess | null = null;
  private ready: Promise<void> | null = null;
  private readonly jobs = new Map<string, Job>();
  private stopped = false;

  constructor(
    private readonly host: SandboxHost,
    private readonly log: (line: string) => void,
    private readonly entry: string = spawnerEntry(),
  ) {}

  /** Starts the spawner (once). Rejects when it does not answer within SPAWNER_START_MS. */
  start(): Promise<void> {
    this.ready ??= this.fork();
    return this.ready;
  }

  /**
   * Runs `job` through the spawner, reporting to `hooks`. Returns `cancel()` (asks the spawner to
   * terminate the call's process tree) and `done`, which resolves with how it ended and never rejects.
   */
  run(job: SpawnJob, hooks: SpawnHooks): { cancel(): void; done: Promise<SpawnResult> } {
    const done = new Promise<SpawnResult>((resolve) => {
      this.start().then(
        () => {
          if (this.child === null || !this.child.connected) return resolve({ kind: "lost", reason: "the worker's spawner process is not running" });
          this.jobs.set(job.callId, { hooks, resolve });
          this.send({ type: "start", job });
        },
        (error: unknown) => resolve({ kind: "lost", reason: `the worker's spawner process did not start: ${(error as Error).message}` }),
      );
    });
    return { cancel: () => this.send({ type: "cancel", callId: job.callId }), done };
  }

  /** Closes the channel: the spawner stops whatever still runs and exits. Idempotent. */
  stop(): void {
    this.stopped = true;
    if (this.child?.connected) this.child.disconnect();
  }

  private send(message: ToSpawner): void {
    if (this.child?.connected) this.child.send(message);
  }

  private fork(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const child = fork(this.entry, ["--spawner"], { execArgv: [], env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } as unknown as NodeJS.ProcessEnv, stdio: ["ignore", "inherit", "inherit", "ipc"] });
      this.child = child;
      const timer = setTimeout(() => reject(new Error(`no answer within ${SPAWNER_START_MS} ms`)), SPAWNER_START_MS);
      child.on("message", (message: FromSpawner) => {
        if (message.type === "ready") {
          clearTimeout(timer);
          resolve();
          return;
        }
        const job = this.jobs.get(message.callId);
        if (!job) return;
        if (message.type === "spawned") job.hooks.onSpawn(message);
        else if (message.type === "stderr") for (const line of message.lines) job.hooks.onStderrLine(line);
        else if (message.type === "truncated") job.hooks.onStderrTruncated(message.kept, message.cause);
        else {
          this.jobs.delete(message.callId);
          job.resolve(message.type === "ended" ? { kind: "ended", outcome: message.outcome, limitHit: message.limitHit } : { kind: "refused", reason: message.reason });
        }
      });
      child.once("error", (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.once("exit", (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`it exited (${code ?? signal}) before it was ready`));
        if (this.child === child) {
          this.child = null;
          this.ready = null;
        }
        const reason = `the worker's spawner process exited (${code ?? signal}) while the call ran`;
        if (!this.stopped) this.log(`worker: ${reason.replace(" while the call ran", "")}; a new one starts with the next call`);
        for (const [callId, job] of this.jobs) {
          this.jobs.delete(callId);
          job.resolve({ kind: "lost", reason });
        }
      });
      // The spawner must not keep the worker's event loop alive on its own.
      child.unref();
      (child.channel as unknown as { unref?: () => void } | undefined)?.unref?.();
      child.send({ type: "init", host: this.host } satisfies ToSpawner);
    });
  }
}

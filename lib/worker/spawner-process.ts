import { closeSync } from "node:fs";
import { startProcess, type RunningProcess } from "@/lib/server/executor";
import { CallCgroup } from "@/lib/server/executor/sandbox/call-cgroup";
import { openBindFd } from "@/lib/server/executor/sandbox/bind-fd";
import type { SandboxHost } from "@/lib/server/executor/sandbox/host-capabilities";
import { closeInheritableFds } from "@/lib/server/executor/sandbox/inherited-fds";
import { buildSandboxedCommand } from "@/lib/server/executor/sandbox/sandbox-command";
import type { FromSpawner, SpawnJob, ToSpawner } from "./spawner-protocol";

/** The process to start for a job, with the descriptors to close once it started. */
interface PreparedCommand {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  extraFds: number[];
  bindFds: number[];
}

/**
 * The worker's spawner (`.worker/worker.mjs --spawner`, forked by CallSpawner): a small process that
 * starts the calls' processes, so each fork copies this lean process rather than the worker, whose
 * size grows with the skills it holds (the full benchmark's 10,000-skill worker forked ~8 ms slower
 * per call than a lean process; issue 9 point 6). It does the part of a call that touches the process:
 * opens the snapshot's bind descriptors and builds the sandboxed command (buildSandboxedCommand, every
 * check on real paths and descriptors), makes the call's cgroup with its limits, starts the process
 * (startProcess), streams its spawn, stderr lines and end back to the worker over the IPC channel
 * (lines batched per event-loop turn), reads which limit it hit, and removes the cgroup. Planning, the
 * digest checks and the snapshot stay in the worker. When the worker goes away (the channel closes,
 * even after kill -9), it stops every call's process tree and exits; bwrap's --die-with-parent takes
 * the sandboxes if it is killed itself. Never throws.
 */
export function runSpawner(): void {
  // Nothing this process inherited may reach a skill (the IPC channel is close-on-exec already).
  closeInheritableFds();
  let host: SandboxHost | null = null;
  const running = new Map<string, { process: RunningProcess | null; cancelled: boolean }>();
  const pendingLines = new Map<string, string[]>();
  let flushScheduled = false;

  const send = (message: FromSpawner) => {
    if (process.connected) process.send!(message);
  };
  const flush = (callId?: string) => {
    for (const [id, lines] of pendingLines) {
      if (callId !== undefined && id !== callId) continue;
      pendingLines.delete(id);
      send({ type: "stderr", callId: id, lines });
    }
  };
  const line = (callId: string, text: string) => {
    let lines = pendingLines.get(callId);
    if (!lines) pendingLines.set(callId, (lines = []));
    lines.push(text);
    if (!flushScheduled) {
      flushScheduled = true;
      setImmediate(() => {
        flushScheduled = false;
        flush();
      });
    }
  };

  const start = async (job: SpawnJob): Promise<void> => {
    const entry = { process: null as RunningProcess | null, cancelled: false };
    running.set(job.callId, entry);
    try {
      if (host === null) return send({ type: "refused", callId: job.callId, reason: "the spawner was not initialised" });
      let cgroup: CallCgroup;
      try {
        cgroup = await CallCgroup.create(host, job.callId, job.limits);
      } catch (error) {
        return send({ type: "refused", callId: job.callId, reason: `its cgroup could not be made: ${(error as Error).message}` });
      }
      let prepared: PreparedCommand;
      try {
        prepared = prepare(host, job);
      } catch (error) {
        await cgroup.remove().catch(() => undefined);
        return send({ type: "refused", callId: job.callId, reason: (error as Error).message });
      }
      const wrapped = cgroup.wrapCommand({ command: prepared.command, args: prepared.args });
      const child = startProcess(
        { ...job.process, command: wrapped.command, args: wrapped.args, cwd: prepared.cwd, env: prepared.env, extraFds: prepared.extraFds, containment: cgroup.containment() },
        {
          onSpawn: ({ pid, pgid, identity }) => send({ type: "spawned", callId: job.callId, pid, pgid, identity }),
          onStderrLine: (text) => line(job.callId, text),
          onStderrTruncated: (kept, cause) => {
            flush(job.callId);
            send({ type: "truncated", callId: job.callId, kept, cause });
          },
        },
      );
      // The child holds its own copies of the bind descriptors now.
      for (const fd of prepared.bindFds) closeSync(fd);
      entry.process = child;
      if (entry.cancelled) child.cancel();
      const outcome = await child.done;
      const limitHit = await cgroup.limitHit();
      flush(job.callId);
      send({ type: "ended", callId: job.callId, outcome, limitHit });
      await cgroup.remove().catch((error: unknown) => console.error(`spawner: removing the cgroup of call ${job.callId} failed:`, error));
    } catch (error) {
      console.error(`spawner: call ${job.callId} failed unexpectedly:`, error);
      send({ type: "refused", callId: job.callId, reason: `the spawner failed: ${(error as Error).message}` });
    } finally {
      running.delete(job.callId);
    }
  };

  process.on("message", (message: ToSpawner) => {
    if (message.type === "init") {
      host = message.host;
      send({ type: "ready" });
    } else if (message.type === "start") {
      void start(message.job);
    } else if (message.type === "cancel") {
      const entry = running.get(message.callId);
      if (!entry) return;
      entry.cancelled = true;
      entry.process?.cancel();
    }
  });
  // The worker is gone (stopped, crashed, killed -9): nothing of its calls may outlive it.
  process.on("disconnect", () => {
    const calls = [...running.values()];
    for (const entry of calls) {
      entry.cancelled = true;
      entry.process?.cancel();
    }
    const waits = calls.map((entry) => entry.process?.done ?? Promise.resolve());
    void Promise.allSettled(waits).then(() => process.exit(0));
    // Calls still being set up get no process; whatever hangs, the spawner ends.
    setTimeout(() => process.exit(0), 30_000).unref();
  });
}

/**
 * The command of `job`: a sandboxed request gets its snapshot binds opened here (O_PATH descriptors,
 * so what the sandbox sees is what was opened, whatever happens to the paths) and is built by
 * buildSandboxedCommand; a plain one runs as given. Throws Error when the sandbox cannot be set up
 * (every descriptor opened so far is closed again).
 */
function prepare(host: SandboxHost, job: SpawnJob): PreparedCommand {
  if (job.command.kind === "plain") return { ...job.command, extraFds: [], bindFds: [] };
  const binds: Array<{ fd: number; target: string }> = [];
  try {
    for (const bind of job.command.binds) binds.push({ fd: openBindFd(bind.path), target: bind.target });
    const built = buildSandboxedCommand(host, { ...job.command.request, binds });
    // bwrap's own working folder does not matter: it changes into the skill's folder inside.
    return { command: built.command, args: built.args, env: built.env, cwd: "/", extraFds: built.extraFds, bindFds: [...binds.map((bind) => bind.fd), ...built.openedFds] };
  } catch (error) {
    for (const bind of binds) closeSync(bind.fd);
    throw error;
  }
}

import { spawn, type ChildProcessByStdio } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { ProcessRun } from "./process-run";
import type { ChildLauncher, ProcessHooks, ProcessOutcome, ProcessSpec, RunningProcess, SpawnedChild } from "./process-types";
import { describeSpawnFailure } from "./spawn-failure";

/**
 * Starts `spec.command` as the leader of a new process group (the only place the console spawns
 * processes; DESIGN.md "Subprocess skills (seed 000)"): no shell, exactly `spec.env`, cwd `spec.cwd`,
 * `spec.stdin` written then closed, stderr lines passed to `hooks` as they arrive, stdout kept up to its
 * limit. On timeout, cancel() or stdout overflow the whole group gets SIGTERM, then SIGKILL after
 * killGraceMs; when the direct child exits, whatever is left of its group is terminated the same way
 * after exitDrainMs, and so is `spec.containment` (a sandbox's cgroup) when there is one. `done`
 * resolves once no live member of the group (nor of the containment) remains. `spec.extraFds` are
 * inherited as fd 3, 4, ….
 *
 * Never throws and `done` never rejects: a failed spawn (ENOENT, EACCES, bad cwd) gives pid/pgid null
 * and the outcome `spawn_failed` with a readable error.
 */
export function startProcess(spec: ProcessSpec, hooks: ProcessHooks): RunningProcess {
  const startedAt = performance.now();
  // node:child_process directly, not execa: every feature execa adds (buffering, rejection, PATH
  // extension, cleanup on exit, kill escalation) is turned off or done by ProcessRun, and execa's
  // option handling cost 1.6–2.8 ms of CPU per spawn on this machine, as much again as the spawn
  // itself (measured side by side, 400 spawns of /bin/true each).
  let child: ChildProcessByStdio<Writable, Readable, Readable>;
  try {
    child = spawn(spec.command, spec.args, {
      cwd: spec.cwd,
      // Exactly the skill's environment: nothing of this process's is added (no PATH, no NODE_*).
      env: spec.env as NodeJS.ProcessEnv,
      shell: false,
      // Leads its own process group (pgid = pid), which the timeout, cancel and the exit drain kill.
      detached: true,
      stdio: ["pipe", "pipe", "pipe", ...(spec.extraFds ?? [])],
    }) as ChildProcessByStdio<Writable, Readable, Readable>;
  } catch (error) {
    return failedStart(Promise.resolve(error), spec, startedAt);
  }
  const pid = child.pid;
  // A child that could not start (ENOENT, EACCES, bad cwd) has no pid and emits `error` next tick.
  if (pid === undefined) return failedStart(new Promise((resolve) => child.once("error", resolve)), spec, startedAt);
  // Later errors (a failed kill of an already reaped child) are reported through the outcome, not thrown.
  child.on("error", () => undefined);
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  const spawned: SpawnedChild = { pid, stdin: child.stdin, stdout: child.stdout, stderr: child.stderr, exited };
  return new ProcessRun(spec, hooks, spawned, pid, startedAt).handle;
}

/**
 * startProcess, with the fork made by `launcher` (a small process of its own: a fork copies the page
 * tables of the process that forks, ~40 µs per MiB it has touched, measured on this machine, so a
 * worker holding 10,000 skills paid ~10 ms per spawn on its event loop; issue 9 point 6). The same
 * rules as startProcess; `spec.stdin` goes to the launcher, which writes it, and `spec.extraFds` are
 * this process's descriptors, which the launcher reopens. Resolves (never rejects) once the child runs
 * or could not start (`spawn_failed`, the launcher's reason); `onSpawn` is called before it resolves.
 */
export async function launchProcess(launcher: ChildLauncher, spec: ProcessSpec, hooks: ProcessHooks): Promise<RunningProcess> {
  const startedAt = performance.now();
  let child: SpawnedChild;
  try {
    child = await launcher.launch({
      command: spec.command,
      args: spec.args,
      cwd: spec.cwd,
      env: spec.env,
      stdin: spec.stdin,
      extraFds: spec.extraFds ?? [],
      killOnLoss: spec.containment?.killOnLoss ?? null,
      forwardBytes: { stdout: spec.stdoutLimitBytes, stderr: spec.stderrLimitBytes },
    });
  } catch (error) {
    return failedStart(Promise.resolve(error), spec, startedAt);
  }
  return new ProcessRun(spec, hooks, child, child.pid, startedAt).handle;
}

function failedStart(settled: PromiseLike<unknown>, spec: ProcessSpec, startedAt: number): RunningProcess {
  const done = Promise.resolve(settled).then(
    (failure) => spawnFailedOutcome(describeSpawnFailure(failure, spec), startedAt),
    (failure: unknown) => spawnFailedOutcome(describeSpawnFailure(failure, spec), startedAt),
  );
  return { pid: null, pgid: null, cancel: () => undefined, done };
}

function spawnFailedOutcome(error: string, startedAt: number): ProcessOutcome {
  return { end: "spawn_failed", exitCode: null, signal: null, stdout: "", durationMs: elapsed(startedAt), error };
}

function elapsed(startedAt: number): number {
  return Math.round(performance.now() - startedAt);
}

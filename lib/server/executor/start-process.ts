import { execa, type ResultPromise } from "execa";
import { ProcessRun } from "./process-run";
import type { ProcessHooks, ProcessOutcome, ProcessSpec, RunningProcess } from "./process-types";
import { describeSpawnFailure } from "./spawn-failure";

/**
 * execa 9 options: a detached child leads its own process group (pgid = pid) and is not killed by
 * execa on console exit (start-up recovery handles it); the environment is not extended (no PATH,
 * nothing from npm-run-path); output is read as raw bytes by us, never buffered by execa.
 */
const EXECA_OPTIONS = {
  extendEnv: false,
  preferLocal: false,
  shell: false,
  detached: true,
  cleanup: false,
  buffer: false,
  reject: false,
  stdin: "pipe",
  stdout: "pipe",
  stderr: "pipe",
  encoding: "buffer",
  stripFinalNewline: false,
  forceKillAfterDelay: false,
  verbose: "none",
} as const;

/** The subprocess execa returns for EXECA_OPTIONS (all three pipes present). */
export type ExecaChild = ResultPromise<typeof EXECA_OPTIONS>;

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
  let child: ExecaChild;
  try {
    child = execa(spec.command, spec.args, { ...optionsFor(spec), cwd: spec.cwd, env: spec.env }) as ExecaChild;
  } catch (error) {
    return failedStart(Promise.resolve(error), spec, startedAt);
  }
  const pid = child.pid;
  if (pid === undefined) return failedStart(child, spec, startedAt);
  return new ProcessRun(spec, hooks, child, pid, startedAt).handle;
}

/**
 * EXECA_OPTIONS for one spec: with `extraFds` the three pipes and the inherited descriptors are given
 * as one `stdio` array (execa refuses `stdio` together with `stdin`/`stdout`/`stderr`).
 */
function optionsFor(spec: ProcessSpec): typeof EXECA_OPTIONS {
  if (!spec.extraFds || spec.extraFds.length === 0) return EXECA_OPTIONS;
  const { stdin: _stdin, stdout: _stdout, stderr: _stderr, ...rest } = EXECA_OPTIONS;
  return { ...rest, stdio: ["pipe", "pipe", "pipe", ...spec.extraFds] } as unknown as typeof EXECA_OPTIONS;
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

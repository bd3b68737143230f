import type { Readable, Writable } from "node:stream";
import type { ProcessIdentity } from "./process-identity";
import type { StderrTruncation } from "./stderr-lines";
import type { LineEdges } from "./line-splitter";

/**
 * Everything needed to run one child process (DESIGN.md "Subprocess skills"). Durations in ms, sizes in
 * bytes. The executor runs exactly this: no shell, nothing added to `env`.
 */
export interface ProcessSpec {
  /** Absolute path of the executable, already realpath'd and checked by the loader. */
  command: string;
  /** argv after the command (empty for subprocess skills). */
  args: string[];
  /** Working directory of the child. */
  cwd: string;
  /** The exact environment of the child: nothing is inherited; `{}` is an empty environment, not even PATH. */
  env: Record<string, string>;
  /** Written to the child's stdin, which is then closed (the args JSON). The child may exit without reading it. */
  stdin: string;
  /** Time from spawn after which the whole process group is terminated and the outcome is `timed_out`. */
  timeoutMs: number;
  /** Time between SIGTERM and SIGKILL when the group is terminated. */
  killGraceMs: number;
  /** After the direct child exits, how long leftover group members may keep writing before the group is terminated. */
  exitDrainMs: number;
  /** Largest stdout kept; past it the outcome is `stdout_overflow`. */
  stdoutLimitBytes: number;
  /** Largest stderr turned into lines; past it onStderrTruncated is called and the rest is dropped. */
  stderrLimitBytes: number;
  /** Most stderr lines passed on; past it onStderrTruncated is called and the rest is dropped. Default DEFAULT_STDERR_LINE_LIMIT. */
  stderrLineLimit?: number;
  /**
   * Open file descriptors the child inherits as fd 3, 4, … in this order (e.g. the directory fd a
   * sandbox binds with `--ro-bind-fd 3 …`). The caller keeps ownership and closes them after spawn.
   */
  extraFds?: number[];
  /**
   * What else holds the call's processes besides its process group (a sandbox's cgroup: members of a
   * new session or of a host pid namespace that a group signal cannot reach). When set, the run ends
   * only after both the group and the containment are empty.
   */
  containment?: ProcessContainment;
}

/**
 * Everything of one call that a process-group signal may miss (DESIGN.md "Workers and the sandbox":
 * `setsid` and double-forks must not outlive the call). Implemented by a per-call cgroup.
 */
export interface ProcessContainment {
  /**
   * Stops every process still in the containment: SIGTERM, then SIGKILL after `graceMs` ms, until it
   * is empty. Resolves with the pids that would not die (normally none); never rejects.
   */
  terminate(graceMs: number): Promise<{ remaining: number[] }>;
  /**
   * The cgroup a process launcher kills at once should the process that asked for the call vanish
   * (ProcessLauncher: the worker killed with -9): `unified` for `cgroup.kill`, else `freezer` for a
   * v1 freeze → SIGKILL → thaw. Absent where the containment kills nothing by cgroup.
   */
  killOnLoss?: CgroupKillPaths;
}

/** A call's cgroup directories a launcher can kill it through (see ProcessContainment.killOnLoss). */
export interface CgroupKillPaths {
  unified: string | null;
  freezer: string | null;
}

/** Callbacks of a running process. They should not throw; an exception is logged and otherwise ignored. */
export interface ProcessHooks {
  /** Called once, synchronously inside startProcess, right after a successful spawn (pgid == pid). */
  onSpawn?(info: { pid: number; pgid: number; identity: ProcessIdentity }): void;
  /**
   * Each stderr line as it arrives, in order, without its `\n` / `\r\n`; long lines come in 64 Ki
   * pieces, and `edges` says where a line was cut (a piece's ends, the last line kept at the byte limit).
   */
  onStderrLine(line: string, edges?: LineEdges): void;
  /**
   * Called once when stderr passes stderrLimitBytes or stderrLineLimit, with the bytes kept and which
   * limit it was; no line follows it.
   */
  onStderrTruncated?(keptBytes: number, cause: StderrTruncation): void;
}

/** How a process run ended. */
export type ProcessEnd = "exited" | "timed_out" | "cancelled" | "stdout_overflow" | "spawn_failed";

/** The result of a process run, produced only once no live member of its process group remains. */
export interface ProcessOutcome {
  end: ProcessEnd;
  /** Exit code of the direct child, null when it was killed by a signal or never started. */
  exitCode: number | null;
  /** Signal that killed the direct child (e.g. "SIGTERM"), or null. */
  signal: string | null;
  /** The stdout bytes kept (at most stdoutLimitBytes), decoded as UTF-8. */
  stdout: string;
  /** Milliseconds from spawn until the whole process group was gone. */
  durationMs: number;
  /** Human message for a spawn failure or for group members that would not die; null otherwise. */
  error: string | null;
}

/** A started process. `pid`/`pgid` are null when the spawn failed. */
export interface RunningProcess {
  pid: number | null;
  pgid: number | null;
  /** Terminates the whole group (outcome `cancelled`). Harmless before spawn failure, after exit, or twice. */
  cancel(): void;
  /** Resolves (never rejects) once the process group is gone. */
  done: Promise<ProcessOutcome>;
}

/**
 * A started child as ProcessRun drives it: its pid (the leader of its own process group), its stdout
 * and stderr pipes read as raw bytes, its stdin (null when whoever spawned it wrote `spec.stdin`
 * itself), and `exited`, which resolves with the direct child's exit code or signal.
 */
export interface SpawnedChild {
  pid: number;
  stdin: Writable | null;
  stdout: Readable;
  stderr: Readable;
  exited: Promise<{ code: number | null; signal: string | null }>;
}

/** What a launcher is asked to start: ProcessSpec's program, with `stdin` to write and `extraFds` (this process's descriptors) to pass on as fd 3, 4, …. */
export interface LaunchRequest {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  stdin: string;
  extraFds: number[];
  /** The call's cgroup, killed by the launcher when its channel closes (ProcessContainment.killOnLoss); null for none. */
  killOnLoss: CgroupKillPaths | null;
  /**
   * Most bytes of each stream the launcher forwards (the spec's stdoutLimitBytes and stderrLimitBytes):
   * past them, plus the chunk that crosses them, it reads and drops what the child writes.
   */
  forwardBytes: { stdout: number; stderr: number };
}

/**
 * Starts children for launchProcess in another process (the worker's process launcher,
 * lib/worker/process-launcher.ts). `launch` resolves once the child runs, detached (its own process
 * group), with exactly `env`; it rejects with an errno-carrying error (`code` ENOENT, EACCES, …)
 * when it could not start, or with a plain Error when the launcher itself is gone.
 */
export interface ChildLauncher {
  launch(request: LaunchRequest): Promise<SpawnedChild>;
}

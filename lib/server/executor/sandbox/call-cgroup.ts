import { mkdirSync, readlinkSync, realpathSync, watch } from "node:fs";
import path from "node:path";
import { KILL_WAIT_MS } from "../process-group";
import type { CgroupKillPaths, ProcessContainment } from "../process-types";
import { makeCgroupDir, readControl, removeCgroupDir } from "./cgroup-fs";
import { applyCpuLimit, applyMemoryLimit, applyPidsLimit, enableV2Controllers, memoryLimitHit, pidsLimitHit } from "./cgroup-limits";
import { assertCgroupName } from "./cgroup-placement";
import { callDirList, emptyCallCgroups, killUntilEmpty, liveMembers, type CallCgroupDirs } from "./cgroup-signal";
import type { SandboxHost, SandboxLimits } from "./host-capabilities";

// The worker-start cleanup of call cgroups belongs with them for callers; it lives in its own file.
export { releaseCgroupRun, sweepStaleCgroups } from "./cgroup-sweep";

/** How long, in ms, remove() retries a cgroup the kernel still calls busy. */
const REMOVE_WAIT_MS = 2_000;

/**
 * Joins the cgroups named by its arguments before anything else runs: `sh -c JOIN sh <files…> -- <command…>`.
 * Each file is a v1 hierarchy's `tasks`, which gets `0` (the current thread: the shell, which has no
 * other), or a v2 cgroup's `cgroup.procs`, which gets the shell's pid; then it execs the command, so
 * the command — setpriv, bwrap and every descendant — is accounted and killable from its first
 * instruction. A failed join ends the call with 125 instead of running it uncontained. Only positional
 * parameters are used: a variable the script set would reach the command should the caller's
 * environment export one of that name. The shell itself resets IFS, OPTIND and PPID when it starts,
 * so skills are never given those (child-environment.ts SHELL_RESET_NAMES). dash exports PWD to
 * whatever it execs even when its environment had none: it is unset, so a command run without bwrap
 * gets exactly the caller's environment (one that itself held PWD loses it); bwrap sets PWD to the
 * folder it starts the skill in, whatever it was given.
 *
 * Why `tasks` with 0 for v1: the kernel moves the current thread without cgroup_threadgroup_rwsem,
 * whereas a pid written to cgroup.procs (or tasks) takes it for writing and, without favordynmods,
 * waits for an RCU grace period (8–15 ms on this host, measured with a call every 30 ms: the join
 * was the only slow system call of a spawn).
 */
const JOIN_SCRIPT = [
  "unset PWD",
  'while [ "$1" != -- ]; do',
  '  case "$1" in',
  '    */tasks) echo 0 > "$1" ;;',
  '    *) echo "$$" > "$1" ;;',
  "  esac || { echo \"sandbox: cannot join the call's cgroup $1\" >&2; exit 125; }",
  "  shift",
  "done",
  "shift",
  'exec "$@"',
].join("\n");

/** A command line (what startProcess runs). */
export interface CommandLine {
  command: string;
  args: string[];
}

/**
 * The cgroups of one call (DESIGN.md "Workers and the sandbox": limits per call, a call that hits one
 * fails with the limit named; nothing of a call outlives it). Made by `create`, used for one spawn,
 * then `remove`d. Where the host has no cgroup, every method degrades: wrapCommand adds only the
 * rlimits, the containment has nothing to terminate, limitHit answers null.
 */
export class CallCgroup {
  private constructor(
    /** The call's cgroup directories (null where the host uses none). */
    readonly dirs: CallCgroupDirs,
    private readonly host: SandboxHost,
    private readonly limits: SandboxLimits,
  ) {}

  /**
   * Creates the cgroups of call `callId` at `<own>/<cgroupName>/<run>/<callId>` in each hierarchy the
   * host uses (host.cgroups) and writes the limits there, each by the mechanism host.limits names:
   * v2 memory.max/pids.max/cpu.max, or v1 memory.limit_in_bytes (+ memsw), pids.max, cpu.cfs_*;
   * a v2 cgroup (cgroup.kill) or a v1 freezer for host.kill. A limit the host enforces by "none" is
   * not applied; cpu only when limits.cpu is set. Throws RangeError for a callId that is not a safe
   * name, Error when a cgroup already exists (a reused id must not inherit processes) or cannot be
   * made or limited; what it made is removed again before it throws.
   */
  static async create(host: SandboxHost, callId: string, limits: SandboxLimits): Promise<CallCgroup> {
    assertCgroupName(callId, "callId");
    const { own, name, run } = host.cgroups;
    const dirs: CallCgroupDirs = { unified: null, memory: null, pids: null, cpu: null, freezer: null };
    const leaf = (root: string) => path.join(root, name, run, callId);
    const cgroup = new CallCgroup(dirs, host, limits);
    try {
      const v2 = v2Controllers(host, limits);
      if (own.unified !== null && (host.kill === "cgroup-v2" || v2.length > 0)) {
        enableV2Controllers(own.unified, [name, run], v2);
        dirs.unified = makeLeaf(leaf(own.unified));
        if (v2.includes("memory")) applyMemoryLimit(dirs.unified, 2, limits.memoryMb);
        if (v2.includes("pids")) applyPidsLimit(dirs.unified, limits.pids);
        if (v2.includes("cpu") && limits.cpu !== null) applyCpuLimit(dirs.unified, 2, limits.cpu);
      }
      if (own.memory !== null && host.limits.memory.by === "cgroup-v1") {
        dirs.memory = makeLeaf(leaf(own.memory));
        applyMemoryLimit(dirs.memory, 1, limits.memoryMb);
      }
      if (own.pids !== null && host.limits.pids.by === "cgroup-v1") {
        dirs.pids = makeLeaf(leaf(own.pids));
        applyPidsLimit(dirs.pids, limits.pids);
      }
      if (own.cpu !== null && host.limits.cpu.by === "cgroup-v1" && limits.cpu !== null) {
        dirs.cpu = makeLeaf(leaf(own.cpu));
        applyCpuLimit(dirs.cpu, 1, limits.cpu);
      }
      if (own.freezer !== null && host.kill === "cgroup-v1-freezer") dirs.freezer = makeLeaf(leaf(own.freezer));
    } catch (error) {
      await cgroup.remove().catch(() => undefined);
      throw new Error(`cannot create the cgroups of call ${callId}: ${error instanceof Error ? error.message : String(error)}`);
    }
    return cgroup;
  }

  /**
   * True when every process of the call, also one that left its process group, is killed through
   * these cgroups: at the call's end and by sweepStaleCgroups at the next worker start, should the
   * worker die with -9 (a v2 cgroup where the host kills by cgroup.kill, or a v1 freezer). Such a
   * call needs no other record of its processes.
   */
  get killsEverything(): boolean {
    return this.killPaths() !== null;
  }

  /** The cgroup that kills every process of the call (killsEverything), as a launcher is told it; null without one. */
  private killPaths(): CgroupKillPaths | null {
    if (this.host.kill === "cgroup-v2" && this.dirs.unified !== null) return { unified: this.dirs.unified, freezer: null };
    if (this.host.kill === "cgroup-v1-freezer" && this.dirs.freezer !== null) return { unified: null, freezer: this.dirs.freezer };
    return null;
  }

  /**
   * `command` prefixed so that it joins the call's cgroups before it execs anything (JOIN_SCRIPT, with
   * /bin/sh of the host: v1 ones by thread through `tasks`, the v2 one last through cgroup.procs), and, where a limit falls back to rlimits, runs under `prlimit --as=<bytes>
   * --nproc=<n>` (RLIMIT_NPROC counts every process of the sandbox uid, not only this call's). With
   * neither, `command` as it is. The environment of the result is the caller's: the wrapper adds none.
   */
  wrapCommand(command: CommandLine): CommandLine {
    const inner = [...this.rlimitPrefix(), command.command, ...command.args];
    // The v2 cgroup last: its `populated 1` then says every join is done (joined()).
    const v1 = callDirList(this.dirs).filter((dir) => dir !== this.dirs.unified);
    const files = [...v1.map((dir) => path.join(dir, "tasks")), ...(this.dirs.unified !== null ? [path.join(this.dirs.unified, "cgroup.procs")] : [])];
    if (files.length === 0) return { command: inner[0] ?? command.command, args: inner.slice(1) };
    return { command: "/bin/sh", args: ["-c", JOIN_SCRIPT, "sh", ...files, "--", ...inner] };
  }

  /**
   * Resolves once a process of the call has joined all its cgroups (the v2 cgroup, joined last by
   * wrapCommand's script, reports `populated 1`: the kernel notifies cgroup.events, no polling), or
   * after `timeoutMs`, or at once without a v2 cgroup. Never rejects. Each join takes the kernel's
   * cgroup_threadgroup_rwsem for writing, which waits for an RCU grace period; that ends at once when
   * the other CPUs are idle and takes several ms when one runs user code, so a worker with nothing else
   * to do waits for this before it asks the console for more work (issue 9 point 6: the worker's
   * spawn-to-exit was 21 ms against the baseline's 12 ms for the same command).
   */
  joined(timeoutMs: number): Promise<void> {
    const unified = this.dirs.unified;
    if (unified === null) return Promise.resolve();
    return new Promise<void>((resolve) => {
      let done = false;
      let watcher: ReturnType<typeof watch> | null = null;
      const finish = () => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        watcher?.close();
        resolve();
      };
      const check = () => {
        if (/^populated 1$/m.test(readControl(unified, "cgroup.events") ?? "")) finish();
      };
      const timer = setTimeout(finish, timeoutMs);
      try {
        watcher = watch(path.join(unified, "cgroup.events"), check);
        watcher.on("error", finish);
      } catch {
        return finish();
      }
      check();
    });
  }

  /**
   * The ProcessContainment for startProcess: terminate(graceMs) SIGTERMs (+ SIGCONT) every process
   * of the call (listed while frozen, where a freezer exists), waits up to graceMs, then kills them
   * all atomically (cgroup.kill, or freeze → SIGKILL → thaw) until none is left; resolves with the
   * pids that would not die. Never rejects. Without cgroups it has nothing to do.
   *
   * bwrap's own processes are spared the SIGTERM: bwrap dies of it at once, and --die-with-parent
   * then SIGKILLs the skill, which would never see its grace. Spared, they exit by themselves once
   * the skill has, and the final kill still takes them if it does not.
   *
   * Where these cgroups kill everything (killsEverything), `killOnLoss` names them to the process
   * launcher, which kills them should the worker vanish mid-call (a setsid daemon of a host_pids
   * call is in no process group the launcher could signal, nor in a PID namespace that dies with it).
   */
  containment(): ProcessContainment {
    const killOnLoss = this.killPaths();
    // Resolved only when a process is left to signal: a call whose processes all exited needs none.
    let bwrap: string | null | undefined;
    const isBwrap = (pid: number) => {
      if (bwrap === undefined) bwrap = realPathOrNull(this.host.bwrapPath);
      return bwrap !== null && realPathOrNull(`/proc/${pid}/exe`) === bwrap;
    };
    return {
      ...(killOnLoss !== null ? { killOnLoss } : {}),
      terminate: async (graceMs) => {
        try {
          return { remaining: await emptyCallCgroups(this.dirs, graceMs, isBwrap) };
        } catch (error) {
          console.error("sandbox: emptying a call's cgroups failed:", error);
          return { remaining: liveMembers(this.dirs) };
        }
      },
    };
  }

  /**
   * The limit the call ran into, as its error should name it: `memory limit 1024 MiB exceeded` (the
   * kernel's OOM killer killed a process of the call), `pids limit 256 reached` (a fork failed at
   * pids.max), both joined by "; ", or null (also when limits are only rlimits: the kernel keeps no
   * record of those). Read it after the run ended, before remove(). Never rejects.
   */
  async limitHit(): Promise<string | null> {
    const hits: string[] = [];
    const { unified, memory, pids } = this.dirs;
    const v2 = v2Controllers(this.host, this.limits);
    const memoryHit = (memory !== null && memoryLimitHit(memory, 1)) || (unified !== null && v2.includes("memory") && memoryLimitHit(unified, 2));
    if (memoryHit) hits.push(`memory limit ${this.limits.memoryMb} MiB exceeded`);
    const pidsHit = (pids !== null && pidsLimitHit(pids)) || (unified !== null && v2.includes("pids") && pidsLimitHit(unified));
    if (pidsHit) hits.push(`pids limit ${this.limits.pids} reached`);
    return hits.length === 0 ? null : hits.join("; ");
  }

  /**
   * Removes the call's cgroups: first kills whatever is still in them, then rmdir each, retrying for
   * up to 2 s while the kernel finishes. Idempotent. Rejects with an Error naming the cgroups that
   * could not be removed (sweepStaleCgroups removes them at the next worker start).
   */
  async remove(): Promise<void> {
    if (liveMembers(this.dirs).length > 0) await killUntilEmpty(this.dirs, KILL_WAIT_MS);
    const failed: string[] = [];
    for (const dir of callDirList(this.dirs)) if (!(await removeCgroupDir(dir, REMOVE_WAIT_MS))) failed.push(dir);
    if (failed.length > 0) throw new Error(`cgroups could not be removed: ${failed.join(", ")}`);
  }

  private rlimitPrefix(): string[] {
    const prlimit = this.host.tools.prlimit;
    const settings: string[] = [];
    if (this.host.limits.memory.by === "rlimit") settings.push(`--as=${Math.floor(this.limits.memoryMb * 1024 * 1024)}`);
    if (this.host.limits.pids.by === "rlimit") settings.push(`--nproc=${Math.floor(this.limits.pids)}`);
    if (prlimit === null || settings.length === 0) return [];
    return [prlimit, ...settings, "--"];
  }
}

/** The v2 controllers the host enforces limits with (cpu only when a cpu limit is set). */
function v2Controllers(host: SandboxHost, limits: SandboxLimits): string[] {
  const controllers: string[] = [];
  if (host.limits.memory.by === "cgroup-v2") controllers.push("memory");
  if (host.limits.pids.by === "cgroup-v2") controllers.push("pids");
  if (host.limits.cpu.by === "cgroup-v2" && limits.cpu !== null) controllers.push("cpu");
  return controllers;
}

/**
 * Makes the call's own cgroup, which must be new, and its parents (shared by the run's calls) only
 * when they are missing: after the first call of a run the one mkdir is all it costs.
 */
function makeLeaf(dir: string): string {
  try {
    mkdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    makeCgroupDir(path.dirname(dir));
    mkdirSync(dir);
  }
  return dir;
}

/** The real path of `file` (for /proc/<pid>/exe: of the running program); null when unreadable. */
function realPathOrNull(file: string | null): string | null {
  if (file === null) return null;
  try {
    return file.startsWith("/proc/") ? readlinkSync(file) : realpathSync.native(file);
  } catch {
    return null;
  }
}

import type { SandboxDeclaration } from "./sandbox-declaration";

/** SKILL_SANDBOX: `auto` (bubblewrap when it works, else none), `bwrap` (required), `none`. */
export type SandboxMode = "auto" | "bwrap" | "none";

/**
 * The per-call limits a worker is configured with (DESIGN.md "Workers and the sandbox": SKILL_MEMORY_LIMIT_MB
 * default 1024, SKILL_PIDS_LIMIT default 256, SKILL_CPU_LIMIT cores default unset = null).
 */
export interface SandboxLimits {
  memoryMb: number;
  pids: number;
  cpu: number | null;
}

/** How one limit is enforced on this host, and its value (MiB, processes, cores); value null when `by` is "none". */
export type LimitEnforcement = { by: "cgroup-v2" | "cgroup-v1" | "rlimit" | "none"; value: number | null };

/**
 * Where a worker's call cgroups go: `<own>/<name>/<run>/<callId>` in each hierarchy it uses. `own` is
 * the directory of the worker's own cgroup per hierarchy, null for a hierarchy calls do not use.
 */
export interface CgroupPlacement {
  /** The cgroupName given to detectSandboxHost. */
  name: string;
  /** This worker process's folder (`run-<pid>-<start time>`), so workers sharing a name never touch each other's calls. */
  run: string;
  own: {
    /** cgroup v2: kill by `cgroup.kill`, freeze, and v2 limits. */
    unified: string | null;
    memory: string | null;
    pids: string | null;
    cpu: string | null;
    /** v1 freezer: atomic kill where v2 has no cgroup.kill. */
    freezer: string | null;
  };
}

/**
 * What a worker's host offers the sandbox, probed once at worker start (DESIGN.md "Workers and the
 * sandbox"; shown on the Workers page). `mode` is what calls get; `warning` says every way it falls
 * short of the design (unsandboxed calls, an unusable required bwrap, limits not enforced).
 */
export interface SandboxHost {
  requested: SandboxMode;
  mode: "bwrap" | "none";
  warning: string | null;
  /** The bwrap that passed the probe; null in mode "none" and when a required bwrap is unusable. */
  bwrapPath: string | null;
  /** The uid and gid calls run as. */
  uid: number;
  gid: number;
  /** True when a root worker runs bwrap through setpriv as `uid` (the only way calls cannot read root's files). */
  dropsPrivileges: boolean;
  limits: { memory: LimitEnforcement; pids: LimitEnforcement; cpu: LimitEnforcement };
  /** How every process of a call is killed at its end, including ones that left its process group. */
  kill: "cgroup-v2" | "cgroup-v1-freezer" | "pid-namespace" | "process-group";
  /** Where call cgroups go. */
  cgroups: CgroupPlacement;
  /** util-linux tools in use: setpriv (dropping privileges), prlimit (the rlimit fallback). */
  tools: { setpriv: string | null; prlimit: string | null };
}

/**
 * Why no call can run on `host`, or null when calls can run (DESIGN.md "Workers and the sandbox":
 * SKILL_SANDBOX=bwrap makes calls fail with a clear error when bubblewrap is missing). A required bwrap
 * that is missing or broken is kept as mode "bwrap" with no bwrapPath; the reason is the host's
 * warning, which names the Debian package. Pure.
 */
export function sandboxUnusableReason(host: SandboxHost): string | null {
  if (host.mode !== "bwrap" || host.bwrapPath !== null) return null;
  return host.warning ?? "the bubblewrap sandbox is unusable on this worker; install the Debian package bubblewrap";
}

/**
 * Why `host` may not run a call with `declaration`, or null (deny when containment is in doubt):
 * an unusable sandbox; `host_pids` without a cgroup that can kill the call's processes (without a PID
 * namespace, a `setsid` child outlives every process-group signal); `host_pids` while the sandbox runs
 * as the worker's own uid (it could then signal the worker). Pure.
 */
export function declarationRefusal(host: SandboxHost, declaration: SandboxDeclaration): string | null {
  const unusable = sandboxUnusableReason(host);
  if (unusable !== null) return unusable;
  if (host.mode !== "bwrap" || !declaration.hostPids) return null;
  if (host.kill !== "cgroup-v2" && host.kill !== "cgroup-v1-freezer") {
    return `sandbox.host_pids needs a cgroup to contain the call's processes, and this worker has none (kill: ${host.kill})`;
  }
  if (!host.dropsPrivileges) {
    return "sandbox.host_pids needs the sandbox to run as another uid than the worker (SKILL_SANDBOX_UID with a root worker)";
  }
  return null;
}

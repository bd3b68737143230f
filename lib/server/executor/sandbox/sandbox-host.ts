import { DEFAULT_BWRAP_CANDIDATES, findExecutable, probeSandbox } from "./bwrap-probe";
import { assertCgroupName, currentRunName, readOwnCgroups } from "./cgroup-placement";
import type { SandboxHost, SandboxLimits, SandboxMode } from "./host-capabilities";
import { assertUid, describeUid, lookupUser } from "./host-user";
import { findInheritableFds } from "./inherited-fds";
import { detectLimits, probeCallCgroup, removeProbeParents } from "./limit-detection";
import { inheritableFdsProblem } from "./sandbox-command";

export { declarationRefusal, sandboxUnusableReason } from "./host-capabilities";
export type { CgroupPlacement, LimitEnforcement, SandboxHost, SandboxLimits, SandboxMode } from "./host-capabilities";

/** What detectSandboxHost is told (the worker passes its settings; nothing here reads process.env). */
export interface SandboxHostOptions {
  /** SKILL_SANDBOX. */
  mode: SandboxMode;
  /** SKILL_SANDBOX_UID (default 65534): the uid a root worker drops calls to. */
  uid: number;
  limits: SandboxLimits;
  /** Folder under the worker's own cgroup that holds its call cgroups (letters, digits, _ and -). */
  cgroupName: string;
  /** Where to look for bwrap, in order; default /usr/bin/bwrap, /bin/bwrap. */
  bwrapCandidates?: readonly string[];
  /**
   * "cgroup-v2": kill calls by cgroup.kill wherever a v2 cgroup can, even where every limit is a v1
   * one and the v1 freezer would spare each call the v2 join's RCU grace period (detectLimits). The
   * tests use it so that both ways of killing are run on a hybrid host.
   */
  preferKill?: "cgroup-v2";
}

/**
 * Probes, once at worker start, what the sandbox can be on this host (DESIGN.md "Workers and the
 * sandbox"; the Workers page shows the result).
 *
 * - "none": mode "none", warning `SKILL_SANDBOX=none: calls run unsandboxed as <user>`.
 * - "bwrap"/"auto": bwrap is looked up (bwrapCandidates) and a real minimal sandbox runs
 *   `/usr/bin/id -u` as the calls' uid (probeSandbox). A root worker drops calls to `uid` through
 *   setpriv (dropsPrivileges); any other worker runs them as itself and the warning says that
 *   SKILL_SANDBOX_UID needs a root worker. When bwrap is missing or fails: "auto" gives mode "none"
 *   with the reason in the warning; "bwrap" keeps mode "bwrap" with bwrapPath null and the reason
 *   (naming the Debian package bubblewrap) as warning, so sandboxUnusableReason fails every call.
 *   `uid` 0 for a root worker is refused the same way in both modes: it would sandbox nothing.
 * - limits and kill: detectLimits, then a wrapped spawn must really land in the call cgroups
 *   (probeCallCgroup), else every cgroup mechanism is dropped for the rlimit fallback. kill is
 *   "pid-namespace" (bwrap) or "process-group" (none) where no cgroup can kill.
 *
 * Every limit weaker than a cgroup adds a sentence to `warning`, and so do descriptors this process
 * would leak into every sandbox (see closeInheritableFds; buildSandboxedCommand refuses while they
 * are open). Throws RangeError for a bad uid, cgroupName or limit; otherwise never throws.
 */
export async function detectSandboxHost(options: SandboxHostOptions): Promise<SandboxHost> {
  assertUid(options.uid);
  assertCgroupName(options.cgroupName, "cgroupName");
  assertLimits(options.limits);
  const workerUid = process.getuid?.() ?? -1;
  const workerGid = process.getgid?.() ?? -1;
  const tools = { setpriv: findExecutable(["/usr/bin/setpriv", "/bin/setpriv"]), prlimit: findExecutable(["/usr/bin/prlimit", "/bin/prlimit"]) };
  const run = currentRunName();
  const base: SandboxHost = {
    requested: options.mode,
    mode: "none",
    warning: null,
    bwrapPath: null,
    uid: workerUid,
    gid: workerGid,
    dropsPrivileges: false,
    limits: { memory: unenforced, pids: unenforced, cpu: unenforced },
    kill: "process-group",
    cgroups: { name: options.cgroupName, run, own: { unified: null, memory: null, pids: null, cpu: null, freezer: null } },
    tools,
  };

  const sandbox = options.mode === "none" ? null : await chooseSandbox(base, options, workerUid);
  const host: SandboxHost = sandbox?.host ?? base;
  const warnings: string[] = [];
  if (options.mode === "none") warnings.push(`SKILL_SANDBOX=none: calls run unsandboxed as ${describeUid(workerUid)}`);
  if (sandbox?.problem) {
    warnings.push(
      host.mode === "none"
        ? `SKILL_SANDBOX=auto: ${sandbox.problem}; calls run unsandboxed as ${describeUid(workerUid)}`
        : `SKILL_SANDBOX=${options.mode}: ${sandbox.problem}; every call fails until it is fixed`,
    );
  }
  if (sandbox?.identityNote) warnings.push(sandbox.identityNote);
  const leaking = host.mode === "bwrap" ? findInheritableFds() : [];
  if (leaking.length > 0) warnings.push(`${inheritableFdsProblem(leaking)}; until then every call is refused`);

  const limited = await withLimits(host, options);
  warnings.push(...limited.notes);
  return { ...limited.host, warning: warnings.length === 0 ? null : warnings.join("; ") };
}

const unenforced = { by: "none", value: null } as const;

interface SandboxChoice {
  host: SandboxHost;
  problem: string | null;
  identityNote: string | null;
}

/** Decides mode, bwrapPath, uid and privilege drop for "auto"/"bwrap" (see detectSandboxHost). */
async function chooseSandbox(base: SandboxHost, options: SandboxHostOptions, workerUid: number): Promise<SandboxChoice> {
  const root = workerUid === 0;
  const uid = root ? options.uid : workerUid;
  const identity = { uid, gid: root ? (lookupUser(uid)?.gid ?? uid) : base.gid, dropsPrivileges: root };
  const identityNote = root ? null : `calls run as the worker's own ${describeUid(workerUid)}: SKILL_SANDBOX_UID=${options.uid} needs a root worker`;
  const unusable = (problem: string): SandboxChoice => ({ host: { ...base, ...identity, mode: "bwrap" }, problem, identityNote });
  if (root && uid === 0) return unusable("SKILL_SANDBOX_UID=0 would run calls as root, which the sandbox cannot confine; set an unprivileged uid such as 65534");

  const candidates = options.bwrapCandidates ?? DEFAULT_BWRAP_CANDIDATES;
  const bwrap = findExecutable(candidates);
  let problem: string | null = null;
  if (bwrap === null) problem = `bubblewrap is not installed (no bwrap at ${candidates.join(", ")}); install the Debian package bubblewrap`;
  else if (root && base.tools.setpriv === null) problem = "setpriv (util-linux) is missing, so calls cannot drop to SKILL_SANDBOX_UID";
  else {
    const failure = await probeSandbox({ ...base, ...identity, mode: "bwrap", bwrapPath: bwrap, kill: "pid-namespace" });
    if (failure !== null) problem = `bwrap at ${bwrap} does not work here (${failure}); check that user namespaces are allowed, or reinstall the Debian package bubblewrap`;
  }
  if (problem === null) return { host: { ...base, ...identity, mode: "bwrap", bwrapPath: bwrap }, problem: null, identityNote };
  if (options.mode === "bwrap") return unusable(problem);
  return { host: base, problem, identityNote: null };
}

/** Adds limits, kill and cgroup placement to `host`, dropping every cgroup mechanism a real spawn could not join. */
async function withLimits(host: SandboxHost, options: SandboxHostOptions): Promise<{ host: SandboxHost; notes: string[] }> {
  const input = { limits: options.limits, cgroupName: options.cgroupName, run: host.cgroups.run, prlimit: host.tools.prlimit, callUid: host.uid, preferV2Kill: options.preferKill === "cgroup-v2" };
  const detection = detectLimits(input);
  const fallbackKill = host.mode === "bwrap" ? "pid-namespace" : "process-group";
  let limited: SandboxHost = { ...host, limits: detection.limits, kill: detection.kill ?? fallbackKill, cgroups: { ...host.cgroups, own: detection.own } };
  const notes = [...detection.notes];
  if (Object.values(detection.own).some((dir) => dir !== null)) {
    const problem = await probeCallCgroup(limited, options.limits);
    if (problem !== null) {
      const limits = rlimitsOnly(input);
      limited = { ...limited, limits, kill: fallbackKill, cgroups: { ...host.cgroups } };
      notes.length = 0;
      notes.push(`cgroups unusable (${problem}): memory by ${limits.memory.by}, pids by ${limits.pids.by}, cpu not enforced`);
    }
  }
  await removeProbeParents(readOwnCgroups(), options.cgroupName, host.cgroups.run);
  if (limited.kill === "pid-namespace") notes.push("no cgroup can kill a call's processes: calls declaring host_pids are refused");
  if (limited.kill === "process-group") notes.push("no cgroup can kill a call's processes: one that leaves its process group may outlive the call");
  return { host: limited, notes };
}

/** The limits that remain when no cgroup can be used: rlimits where prlimit exists (RLIMIT_NPROC does not bind root). */
function rlimitsOnly(input: { limits: SandboxLimits; prlimit: string | null; callUid: number }): SandboxHost["limits"] {
  const hasPrlimit = input.prlimit !== null;
  return {
    memory: hasPrlimit ? { by: "rlimit", value: input.limits.memoryMb } : unenforced,
    pids: hasPrlimit && input.callUid !== 0 ? { by: "rlimit", value: input.limits.pids } : unenforced,
    cpu: unenforced,
  };
}

function assertLimits(limits: SandboxLimits): void {
  if (!Number.isFinite(limits.memoryMb) || limits.memoryMb <= 0) throw new RangeError(`SKILL_MEMORY_LIMIT_MB must be a positive number, got ${limits.memoryMb}`);
  if (!Number.isInteger(limits.pids) || limits.pids <= 0) throw new RangeError(`SKILL_PIDS_LIMIT must be a positive integer, got ${limits.pids}`);
  if (limits.cpu !== null && (!Number.isFinite(limits.cpu) || limits.cpu <= 0)) throw new RangeError(`SKILL_CPU_LIMIT must be a positive number of cores, got ${limits.cpu}`);
}

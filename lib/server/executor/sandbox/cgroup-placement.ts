import { readFileSync } from "node:fs";
import path from "node:path";
import { isLiveProcess, readProcStat } from "../proc-stat";

/**
 * The directory, on this host, of the cgroup the current process is in, per hierarchy; null where the
 * hierarchy is not mounted or our cgroup cannot be mapped to a directory of its mount.
 */
export interface OwnCgroups {
  /** cgroup v2 (the unified hierarchy; on a hybrid host e.g. /sys/fs/cgroup/unified). */
  unified: string | null;
  memory: string | null;
  pids: string | null;
  cpu: string | null;
  freezer: string | null;
}

interface CgroupMount {
  version: 1 | 2;
  /** The path inside the hierarchy that is mounted (field 4 of mountinfo; "/" unless a container mounts its own subtree). */
  root: string;
  mountPoint: string;
  /** v1 only: the controllers (and `name=…`) of the hierarchy. */
  options: string[];
}

/**
 * Where our own cgroups are (DESIGN.md "Workers and the sandbox": per-call cgroups go UNDER the cgroup
 * the worker is in, in each hierarchy, never at a hierarchy root we are not in). Takes the texts of
 * /proc/self/cgroup and /proc/self/mountinfo; returns the directory per hierarchy (see OwnCgroups).
 * A cgroup path outside the mount's root (a container that sees only part of a hierarchy) gives null.
 * Pure; never throws.
 */
export function locateOwnCgroups(procCgroup: string, mountInfo: string): OwnCgroups {
  const memberships = parseMemberships(procCgroup);
  const mounts = parseCgroupMounts(mountInfo);
  const locate = (version: 1 | 2, controller: string | null): string | null => {
    const own = version === 2 ? memberships.v2 : memberships.v1.get(controller ?? "");
    if (own === undefined || own === null) return null;
    const mount = mounts.find((entry) => entry.version === version && (controller === null || entry.options.includes(controller)));
    if (mount === undefined) return null;
    if (mount.root !== "/" && own !== mount.root && !own.startsWith(`${mount.root}/`)) return null;
    const relative = mount.root === "/" ? own : own.slice(mount.root.length);
    // Our cgroup may be the hierarchy's root ("/"): no trailing slash, so paths compare as written.
    return path.join(mount.mountPoint, relative).replace(/(.)\/+$/, "$1");
  };
  return {
    unified: locate(2, null),
    memory: locate(1, "memory"),
    pids: locate(1, "pids"),
    cpu: locate(1, "cpu"),
    freezer: locate(1, "freezer"),
  };
}

/** Reads /proc/self/cgroup and /proc/self/mountinfo and locates our cgroups; all null where /proc is unreadable. */
export function readOwnCgroups(): OwnCgroups {
  try {
    return locateOwnCgroups(readFileSync("/proc/self/cgroup", "utf8"), readFileSync("/proc/self/mountinfo", "utf8"));
  } catch {
    return { unified: null, memory: null, pids: null, cpu: null, freezer: null };
  }
}

/**
 * A tuning hint for a host whose cgroup2 mount lacks `favordynmods` (a mount option since Linux 6.0, a boot option since 6.7), or null. Moving a
 * process into a cgroup — every sandboxed call's spawn does, to join its per-call cgroup — takes the
 * kernel's cgroup_threadgroup_rwsem for writing, which without favordynmods waits for an RCU grace
 * period first: ~0.2 ms on an idle machine, but 5–25 ms (a few scheduler ticks) while another CPU runs
 * the console or worker, measured on this project's bench (bench/results.md). Takes the text of
 * /proc/self/mountinfo; returns the sentence the worker logs at start (null when there is no cgroup2
 * mount or it has the option). The console never changes the host's mounts itself. Pure; never throws.
 */
export function cgroupJoinHint(mountInfo: string): string | null {
  const unified = parseCgroupMounts(mountInfo).find((mount) => mount.version === 2);
  if (unified === undefined || unified.options.includes("favordynmods")) return null;
  return (
    `${unified.mountPoint} (cgroup2) is mounted without favordynmods, so each call waits for an RCU grace period ` +
    `(up to ~25 ms on a busy host) to join its cgroup; \`mount -o remount,favordynmods ${unified.mountPoint}\` ` +
    "(or the kernel option cgroup_favordynmods=true) removes that wait"
  );
}

/** cgroupJoinHint for this host's /proc/self/mountinfo; null when it cannot be read. */
export function cgroupJoinHintOfHost(): string | null {
  try {
    return cgroupJoinHint(readFileSync("/proc/self/mountinfo", "utf8"));
  } catch {
    return null;
  }
}

/** `hierarchy:controllers:path` lines: v2 is `0::/path`; v1 controllers may be co-mounted (`cpu,cpuacct`). */
function parseMemberships(text: string): { v2: string | null; v1: Map<string, string> } {
  let v2: string | null = null;
  const v1 = new Map<string, string>();
  for (const line of text.split("\n")) {
    const first = line.indexOf(":");
    const second = line.indexOf(":", first + 1);
    if (first < 0 || second < 0) continue;
    const controllers = line.slice(first + 1, second);
    const cgroupPath = line.slice(second + 1);
    if (!cgroupPath.startsWith("/")) continue;
    if (line.slice(0, first) === "0" && controllers === "") v2 = cgroupPath;
    else for (const controller of controllers.split(",")) v1.set(controller, cgroupPath);
  }
  return { v2, v1 };
}

/** The cgroup and cgroup2 mounts of a mountinfo text (fields: id parent dev root mountpoint opts … - fstype source superopts). */
function parseCgroupMounts(text: string): CgroupMount[] {
  const mounts: CgroupMount[] = [];
  for (const line of text.split("\n")) {
    const [left, right] = line.split(" - ");
    if (left === undefined || right === undefined) continue;
    const fields = left.split(" ");
    const [fsType, , superOptions] = right.split(" ");
    const root = fields[3];
    const mountPoint = fields[4];
    if (root === undefined || mountPoint === undefined) continue;
    if (fsType !== "cgroup" && fsType !== "cgroup2") continue;
    mounts.push({
      version: fsType === "cgroup2" ? 2 : 1,
      root: unescapeMountField(root),
      mountPoint: unescapeMountField(mountPoint),
      options: (superOptions ?? "").split(","),
    });
  }
  return mounts;
}

/** mountinfo writes space, tab, newline and backslash as octal escapes (`\040`). */
function unescapeMountField(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

/** Names the worker and callers may give cgroups: no `/`, no `.` (v1 control files are `<controller>.<name>`). */
const CGROUP_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/** Throws RangeError unless `name` is a safe cgroup directory name (letters, digits, `_`, `-`; at most 128). */
export function assertCgroupName(name: string, what: string): void {
  if (!CGROUP_NAME.test(name)) throw new RangeError(`${what} must be 1-128 letters, digits, _ or -, not ${JSON.stringify(name)}`);
}

/**
 * The folder under `<own cgroup>/<cgroupName>/` that holds this worker process's call cgroups:
 * `run-<pid>-<start time>`. Two workers sharing a cgroup name never touch each other's calls, and a
 * later worker can tell that a run's owner is gone (see isRunOwnerAlive). Throws when /proc does not
 * describe the current process.
 */
export function currentRunName(): string {
  const stat = readProcStat(process.pid);
  if (stat === null) throw new Error("cannot read /proc/self/stat to name this worker's cgroups");
  return `run-${process.pid}-${stat.startTime}`;
}

/**
 * For a run folder name: true while the process that made it still runs (same pid and start time, not
 * a zombie: a worker killed with -9 and not yet reaped is gone); null when it is not a run folder.
 */
export function isRunOwnerAlive(runName: string): boolean | null {
  const match = /^run-(\d+)-(\d+)$/.exec(runName);
  if (match === null) return null;
  const stat = readProcStat(Number(match[1]));
  return stat !== null && stat.startTime === match[2] && isLiveProcess(stat);
}

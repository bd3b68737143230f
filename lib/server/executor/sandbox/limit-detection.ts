import { randomBytes } from "node:crypto";
import { mkdirSync, rmdirSync } from "node:fs";
import path from "node:path";
import { startProcess } from "../start-process";
import { CallCgroup } from "./call-cgroup";
import { hasControl, makeCgroupDir, readControl, removeCgroupDir } from "./cgroup-fs";
import { applyCpuLimit, applyMemoryLimit, applyPidsLimit, enableV2Controllers } from "./cgroup-limits";
import { readOwnCgroups, type OwnCgroups } from "./cgroup-placement";
import type { CgroupPlacement, LimitEnforcement, SandboxHost, SandboxLimits } from "./host-capabilities";
import { describeUid } from "./host-user";

/** What detectLimits found: how each limit is enforced, how calls are killed, where their cgroups go, and why not better. */
export interface LimitDetection {
  limits: SandboxHost["limits"];
  /** Atomic kill through a cgroup, or null when there is none. */
  kill: "cgroup-v2" | "cgroup-v1-freezer" | null;
  own: CgroupPlacement["own"];
  /** One sentence per limit that is weaker than a cgroup (or not enforced), for the host's warning. */
  notes: string[];
}

/** What detectLimits needs to know about the worker. */
export interface LimitDetectionInput {
  limits: SandboxLimits;
  cgroupName: string;
  run: string;
  prlimit: string | null;
  /** The uid calls run as: RLIMIT_NPROC does not bind root, and it counts per uid. */
  callUid: number;
  /** Kill by a v2 cgroup's cgroup.kill even where the v1 freezer would spare calls the v2 join (SandboxHostOptions.preferKill). */
  preferV2Kill?: boolean;
}

type Attempt = { ok: true } | { ok: false; reason: string };

/**
 * Finds which limits this host can enforce, by really creating (and removing) a probe cgroup under
 * `<own cgroup>/<cgroupName>/<run>/` and writing each limit there (DESIGN.md "Workers and the
 * sandbox": cgroup v2 where delegated, else cgroup v1, else rlimits; say which are enforced).
 * Per limit: v2 (the controller is offered and can be enabled for our subtree) → v1 (a writable
 * directory under our own v1 cgroup) → rlimit through prlimit (memory as RLIMIT_AS; pids as
 * RLIMIT_NPROC, only when calls do not run as root) → none; cpu has no rlimit form and is "none"
 * when unset. Kill: where no limit needs a v2 cgroup, the v1 freezer → a v2 cgroup with cgroup.kill
 * → null; where one does (or `preferV2Kill`), the v2 cgroup first. Never throws; what fails is a note.
 *
 * Why the freezer first: a call joins a v1 hierarchy by thread (`tasks`, pid 0: the kernel takes no
 * global lock for the current thread), but a v2 cgroup only as a whole process (`cgroup.procs`),
 * which takes cgroup_threadgroup_rwsem for writing and, unless cgroup2 is mounted with favordynmods,
 * waits for an RCU grace period: 8–15 ms per call on this 250 Hz host when the previous call was
 * more than a grace period ago (measured, issue 9 point 6). Both kill every process of a call,
 * including one that left its process group; the freezer freezes it first so nothing forks meanwhile.
 */
export function detectLimits(input: LimitDetectionInput): LimitDetection {
  const own = readOwnCgroups();
  const v2Offered = own.unified === null ? [] : (readControl(own.unified, "cgroup.controllers") ?? "").split(" ");
  const probe = (root: string | null, controller: string | null, write: (dir: string) => void): Attempt =>
    root === null ? { ok: false, reason: "not mounted" } : probeCgroup(root, input, controller, write);
  const { memoryMb, pids, cpu } = input.limits;
  const notes: string[] = [];

  const memory = chooseEnforcement(
    [
      ["cgroup-v2", () => (v2Offered.includes("memory") ? probe(own.unified, "memory", (dir) => applyMemoryLimit(dir, 2, memoryMb)) : notOffered)],
      ["cgroup-v1", () => probe(own.memory, null, (dir) => applyMemoryLimit(dir, 1, memoryMb))],
      ["rlimit", () => (input.prlimit !== null ? { ok: true } : { ok: false, reason: "no prlimit" })],
    ],
    memoryMb,
  );
  if (memory.by === "rlimit") notes.push(`memory limit enforced only as RLIMIT_AS, on address space (no memory cgroup: ${memory.why})`);
  if (memory.by === "none") notes.push(`memory limit not enforced (${memory.why})`);

  const pidsEnforcement = chooseEnforcement(
    [
      ["cgroup-v2", () => (v2Offered.includes("pids") ? probe(own.unified, "pids", (dir) => applyPidsLimit(dir, pids)) : notOffered)],
      ["cgroup-v1", () => probe(own.pids, null, (dir) => applyPidsLimit(dir, pids))],
      ["rlimit", () => (input.callUid === 0 ? { ok: false, reason: "RLIMIT_NPROC does not bind root" } : input.prlimit !== null ? { ok: true } : { ok: false, reason: "no prlimit" })],
    ],
    pids,
  );
  if (pidsEnforcement.by === "rlimit") notes.push(`pids limit enforced only as RLIMIT_NPROC, which counts every process of ${describeUid(input.callUid)} (no pids cgroup: ${pidsEnforcement.why})`);
  if (pidsEnforcement.by === "none") notes.push(`pids limit not enforced (${pidsEnforcement.why})`);

  const cpuEnforcement =
    cpu === null
      ? { by: "none" as const, value: null, why: "" }
      : chooseEnforcement(
          [
            ["cgroup-v2", () => (v2Offered.includes("cpu") ? probe(own.unified, "cpu", (dir) => applyCpuLimit(dir, 2, cpu)) : notOffered)],
            ["cgroup-v1", () => probe(own.cpu, null, (dir) => applyCpuLimit(dir, 1, cpu))],
          ],
          cpu,
        );
  if (cpu !== null && cpuEnforcement.by === "none") notes.push(`cpu limit not enforced (${cpuEnforcement.why})`);

  const limitsNeedV2 = [memory, pidsEnforcement, cpuEnforcement].some((entry) => entry.by === "cgroup-v2");
  const v2Kill = () => probe(own.unified, null, (dir) => requireControl(dir, "cgroup.kill")).ok;
  const freezer = () => probe(own.freezer, null, (dir) => requireControl(dir, "freezer.state")).ok;
  const order: Array<[NonNullable<LimitDetection["kill"]>, () => boolean]> = [
    ["cgroup-v2", v2Kill],
    ["cgroup-v1-freezer", freezer],
  ];
  if (!limitsNeedV2 && !input.preferV2Kill) order.reverse();
  const kill = order.find(([, works]) => works())?.[0] ?? null;
  const limits = { memory: strip(memory), pids: strip(pidsEnforcement), cpu: strip(cpuEnforcement) };
  const usesV2 = kill === "cgroup-v2" || limitsNeedV2;
  return {
    limits,
    kill,
    own: {
      unified: usesV2 ? own.unified : null,
      memory: memory.by === "cgroup-v1" ? own.memory : null,
      pids: pidsEnforcement.by === "cgroup-v1" ? own.pids : null,
      cpu: cpuEnforcement.by === "cgroup-v1" ? own.cpu : null,
      freezer: kill === "cgroup-v1-freezer" ? own.freezer : null,
    },
    notes,
  };
}

/**
 * Checks, with a real spawn, that a process wrapped by CallCgroup lands in every cgroup `host` uses
 * (its /proc/self/cgroup names the call's folder in each hierarchy). Returns null when it does, else
 * the reason. Never throws.
 */
export async function probeCallCgroup(host: SandboxHost, limits: SandboxLimits): Promise<string | null> {
  const callId = `probe-${randomBytes(6).toString("hex")}`;
  let cgroup: CallCgroup;
  try {
    cgroup = await CallCgroup.create(host, callId, limits);
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  try {
    const lines: string[] = [];
    const command = cgroup.wrapCommand({ command: "/bin/cat", args: ["/proc/self/cgroup"] });
    const outcome = await startProcess(
      { ...command, cwd: "/", env: {}, stdin: "", timeoutMs: 10_000, killGraceMs: 200, exitDrainMs: 200, stdoutLimitBytes: 16_384, stderrLimitBytes: 4096 },
      { onStderrLine: (line) => lines.push(line) },
    ).done;
    if (outcome.end !== "exited" || outcome.exitCode !== 0) return lines.join(" ") || outcome.error || `the cgroup probe ended ${outcome.end} (${outcome.exitCode ?? outcome.signal})`;
    const suffix = `/${host.cgroups.name}/${host.cgroups.run}/${callId}`;
    const memberships = outcome.stdout.split("\n");
    const missing = Object.entries(cgroup.dirs)
      .filter(([, dir]) => dir !== null)
      .map(([hierarchy]) => hierarchy)
      .filter((hierarchy) => !memberships.some((line) => membershipMatches(line, hierarchy, suffix)));
    return missing.length === 0 ? null : `a wrapped process did not join the ${missing.join(", ")} cgroup`;
  } finally {
    await cgroup.remove().catch((error: unknown) => console.error("sandbox: removing the probe cgroup failed:", error));
  }
}

const notOffered: Attempt = { ok: false, reason: "cgroup v2 does not offer the controller" };

/** The first mechanism whose attempt works; the reasons of those that failed explain a weaker one. */
function chooseEnforcement(
  attempts: Array<[Exclude<LimitEnforcement["by"], "none">, () => Attempt]>,
  value: number,
): LimitEnforcement & { why: string } {
  const reasons: string[] = [];
  for (const [by, attempt] of attempts) {
    const result = attempt();
    if (result.ok) return { by, value, why: reasons.join("; ") };
    reasons.push(`${by}: ${result.reason}`);
  }
  return { by: "none", value: null, why: reasons.join("; ") };
}

function strip(enforcement: LimitEnforcement & { why: string }): LimitEnforcement {
  return { by: enforcement.by, value: enforcement.value };
}

/** Creates `<root>/<name>/<run>/probe-<random>` (v2: with `controller` enabled), runs `write` in it, removes it. */
function probeCgroup(root: string, input: LimitDetectionInput, controller: string | null, write: (dir: string) => void): Attempt {
  const parent = path.join(root, input.cgroupName, input.run);
  const dir = path.join(parent, `probe-${randomBytes(6).toString("hex")}`);
  try {
    if (controller !== null) enableV2Controllers(root, [input.cgroupName, input.run], [controller]);
    makeCgroupDir(parent);
    mkdirSync(dir);
    write(dir);
    return { ok: true };
  } catch (error) {
    return { ok: false, reason: (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error)) };
  } finally {
    removeQuietly(dir);
  }
}

/** A fresh probe cgroup holds no process, so one rmdir removes it; a missing one (mkdir failed) is fine. */
function removeQuietly(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // ENOENT: never made.
  }
}

function requireControl(dir: string, file: string): void {
  if (!hasControl(dir, file)) throw new Error(`no ${file}`);
}

/** A /proc/self/cgroup line for `hierarchy` (v2 is `0::…`; v1 lists its controllers) ending in the call's folder. */
function membershipMatches(line: string, hierarchy: string, suffix: string): boolean {
  const [id, controllers, cgroupPath] = line.split(":");
  if (id === undefined || controllers === undefined || cgroupPath === undefined) return false;
  const inHierarchy = hierarchy === "unified" ? id === "0" && controllers === "" : controllers.split(",").includes(hierarchy);
  return inHierarchy && cgroupPath.endsWith(suffix);
}

/** Removes the run folders the probes made (calls make them again on demand), so a worker that starts and stops leaves nothing. */
export async function removeProbeParents(own: OwnCgroups, cgroupName: string, run: string): Promise<void> {
  for (const root of Object.values(own)) {
    if (root === null) continue;
    await removeCgroupDir(path.join(root, cgroupName, run), 0);
    await removeCgroupDir(path.join(root, cgroupName), 0);
  }
}

import path from "node:path";
import { hasControl, makeCgroupDir, readControl, writeControl } from "./cgroup-fs";

/** CFS period used for a CPU limit, in µs (the kernel's default). */
const CPU_PERIOD_US = 100_000;

/** Smallest CFS quota the kernel accepts, in µs. */
const MIN_CPU_QUOTA_US = 1_000;

/**
 * Enables cgroup v2 `controllers` for the children of `ownUnified` and of each folder of `segments`
 * below it (creating those folders), so the call cgroup under them gets memory.max, pids.max, cpu.max.
 * Already enabled ones are left alone. Throws the kernel's error: EBUSY when our own cgroup holds
 * processes and is not a hierarchy root ("no internal processes"), EACCES when it is not delegated to us,
 * ENOENT/EINVAL when a controller is not available.
 */
export function enableV2Controllers(ownUnified: string, segments: readonly string[], controllers: readonly string[]): void {
  if (controllers.length === 0) return;
  let dir = ownUnified;
  for (const next of [...segments, null]) {
    const enabled = (readControl(dir, "cgroup.subtree_control") ?? "").split(" ");
    const missing = controllers.filter((controller) => !enabled.includes(controller));
    if (missing.length > 0) writeControl(dir, "cgroup.subtree_control", missing.map((controller) => `+${controller}`).join(" "));
    if (next === null) return;
    dir = path.join(dir, next);
    makeCgroupDir(dir);
  }
}

/**
 * Limits the memory of cgroup `dir` to `memoryMb` MiB. v2: memory.max, memory.swap.max 0, and
 * memory.oom.group 1 (an OOM kills the whole call, not one random process). v1: memory.limit_in_bytes
 * and, when swap accounting exists, memory.memsw.limit_in_bytes (limit first: memsw may not be below it).
 * Throws the kernel's error.
 */
export function applyMemoryLimit(dir: string, version: 1 | 2, memoryMb: number): void {
  const bytes = String(Math.floor(memoryMb * 1024 * 1024));
  if (version === 2) {
    writeControl(dir, "memory.max", bytes);
    if (hasControl(dir, "memory.swap.max")) writeControl(dir, "memory.swap.max", "0");
    if (hasControl(dir, "memory.oom.group")) writeControl(dir, "memory.oom.group", "1");
    return;
  }
  writeControl(dir, "memory.limit_in_bytes", bytes);
  if (hasControl(dir, "memory.memsw.limit_in_bytes")) writeControl(dir, "memory.memsw.limit_in_bytes", bytes);
}

/** Limits cgroup `dir` to `pids` tasks (pids.max, the same file in v1 and v2). Throws the kernel's error. */
export function applyPidsLimit(dir: string, pids: number): void {
  writeControl(dir, "pids.max", String(Math.floor(pids)));
}

/** Limits cgroup `dir` to `cores` CPUs of time per period (v2 cpu.max; v1 cfs_period_us + cfs_quota_us). Throws the kernel's error. */
export function applyCpuLimit(dir: string, version: 1 | 2, cores: number): void {
  const quota = String(Math.max(MIN_CPU_QUOTA_US, Math.round(cores * CPU_PERIOD_US)));
  if (version === 2) {
    writeControl(dir, "cpu.max", `${quota} ${CPU_PERIOD_US}`);
    return;
  }
  writeControl(dir, "cpu.cfs_period_us", String(CPU_PERIOD_US));
  writeControl(dir, "cpu.cfs_quota_us", quota);
}

/**
 * True once the kernel's OOM killer killed a process of cgroup `dir` for its limit: v2 memory.events
 * `oom_kill`/`oom_group_kill` > 0; v1 memory.oom_control `oom_kill` > 0 (kernels before 4.13 lack
 * that line: there memory.failcnt > 0, the limit was reached, is the closest evidence). Never throws.
 */
export function memoryLimitHit(dir: string, version: 1 | 2): boolean {
  if (version === 2) {
    const events = readControl(dir, "memory.events") ?? "";
    return counter(events, "oom_kill") > 0 || counter(events, "oom_group_kill") > 0;
  }
  const control = readControl(dir, "memory.oom_control") ?? "";
  if (/^oom_kill /m.test(control)) return counter(control, "oom_kill") > 0;
  return Number(readControl(dir, "memory.failcnt") ?? "0") > 0;
}

/** True once a fork in cgroup `dir` failed for pids.max (pids.events `max` > 0, v1 and v2). Never throws. */
export function pidsLimitHit(dir: string): boolean {
  return counter(readControl(dir, "pids.events") ?? "", "max") > 0;
}

/** The number after `name ` on its own line of a flat-keyed cgroup file; 0 when absent. */
function counter(text: string, name: string): number {
  const match = new RegExp(`^${name} (\\d+)$`, "m").exec(text);
  return match === null ? 0 : Number(match[1]);
}

import type { LimitEnforcement, WorkerSandbox } from "@/lib/types/worker";

/** The three per-call limits a worker reports, in the order the Workers page lists them. */
export const LIMIT_NAMES = ["memory", "pids", "cpu"] as const;

/** One of LIMIT_NAMES. */
export type LimitName = (typeof LIMIT_NAMES)[number];

/** A limit in force on a worker, in words: `text` as shown, `enforced` false when a value is set but nothing enforces it. */
export interface LimitLine {
  name: LimitName;
  text: string;
  enforced: boolean;
}

function amount(name: LimitName, value: number): string {
  if (name === "memory") return `${value} MiB`;
  if (name === "cpu") return `${value} ${value === 1 ? "core" : "cores"}`;
  return String(value);
}

/**
 * One limit as the Workers page says it (DESIGN.md "Limits": the page says which are enforced on each
 * worker): `memory 1024 MiB (cgroup-v1)`, `pids 256 (rlimit)`, `cpu unlimited` when no value is set,
 * `memory 1024 MiB (not enforced)` when a value is set but the host offers no mechanism for it.
 */
export function describeLimit(name: LimitName, limit: LimitEnforcement): LimitLine {
  if (limit.value === null) return { name, text: `${name} unlimited`, enforced: true };
  if (limit.by === "none") return { name, text: `${name} ${amount(name, limit.value)} (not enforced)`, enforced: false };
  return { name, text: `${name} ${amount(name, limit.value)} (${limit.by})`, enforced: true };
}

/** Every limit of a worker's sandbox as LimitLines, memory, pids then cpu. */
export function describeLimits(limits: WorkerSandbox["limits"]): LimitLine[] {
  return LIMIT_NAMES.map((name) => describeLimit(name, limits[name]));
}

import { config } from "@/lib/server/env";
import type { LoaderReport } from "@/lib/types/skill";
import { scanSkills } from "./scan-skills";
import { createSkillRegistry, type SkillRegistry } from "./skill-registry";

export type { SkillFilter, SkillRegistry } from "./skill-registry";

// Kept on globalThis so every Next.js route bundle (each its own module instance) shares one registry.
const REGISTRY_KEY = Symbol.for("skill-console.registry");

interface RegistryState {
  current: SkillRegistry | null;
  running: Promise<LoaderReport> | null;
  queued: Promise<LoaderReport> | null;
}

function state(): RegistryState {
  const holder = globalThis as Record<symbol, RegistryState | undefined>;
  return (holder[REGISTRY_KEY] ??= { current: null, running: null, queued: null });
}

async function scanInto(registry: RegistryState): Promise<LoaderReport> {
  const { skills, report } = await scanSkills(config());
  registry.current = createSkillRegistry(skills, report);
  return report;
}

function requestScan(registry: RegistryState): Promise<LoaderReport> {
  if (!registry.running) {
    registry.running = scanInto(registry).finally(() => {
      registry.running = null;
    });
    return registry.running;
  }
  // A scan is already running and may have read the disk before this request: run one more after it,
  // shared by every request that arrives meanwhile.
  registry.queued ??= registry.running
    .catch(() => undefined)
    .then(() => {
      registry.queued = null;
      return requestScan(registry);
    });
  return registry.queued;
}

/**
 * The process-wide skill registry. The first call starts the first scan of `config().skillRoots`, and
 * every caller waits for that scan to finish (DESIGN.md: requests are served only after the first
 * loader scan has finished); later calls return the current snapshot at once, even while a reload
 * runs. Throws only what config() throws (ConfigError), and a later call then tries again.
 */
export async function getRegistry(): Promise<SkillRegistry> {
  const registry = state();
  while (!registry.current) await (registry.running ?? requestScan(registry));
  return registry.current;
}

/**
 * Rescans every root and swaps the new snapshot in atomically (`POST /api/v1/loader/reload`); callers
 * holding the old snapshot keep a consistent view. Concurrent reloads coalesce: while a scan runs, all
 * new requests share one follow-up scan that starts when it ends, so each caller's report reflects
 * the disk as it was at or after its request. Returns that scan's LoaderReport; throws like getRegistry.
 */
export function reloadRegistry(): Promise<LoaderReport> {
  return requestScan(state());
}

/** Forgets the registry so the next getRegistry() scans again with the current settings (tests only). */
export function resetRegistryForTests(): void {
  (globalThis as Record<symbol, RegistryState | undefined>)[REGISTRY_KEY] = undefined;
}

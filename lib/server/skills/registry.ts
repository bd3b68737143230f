import { config } from "@/lib/server/env";
import type { LoaderReport } from "@/lib/types/skill";
import { onReplicaCatchUp, onReplicaMessage } from "../replica-bus";
import { loadSecretGrants, type SecretGrants } from "../secrets/secret-store";
import type { RegisteredSkill } from "./registered-skill";
import { scanSkills } from "./scan-skills";
import { withSecretGrants } from "./secret-grants";
import { createSkillRegistry, type SkillRegistry } from "./skill-registry";

export type { SkillFilter, SkillRegistry } from "./skill-registry";

// Kept on globalThis so every Next.js route bundle (each its own module instance) shares one registry.
const REGISTRY_KEY = Symbol.for("skill-console.registry");

interface RegistryState {
  current: SkillRegistry | null;
  /** What the last scan found, before the secrets are applied (withSecretGrants). */
  scanned: { skills: readonly RegisteredSkill[]; report: LoaderReport } | null;
  /** Which secrets each skill is given, as last read. */
  grants: SecretGrants;
  /** Tickets of the reads of `grants`: a read applies only when no later-started read applied first. */
  grantsTicket: { issued: number; applied: number };
  running: Promise<LoaderReport> | null;
  queued: Promise<LoaderReport> | null;
}

function state(): RegistryState {
  const holder = globalThis as Record<symbol, RegistryState | undefined>;
  return (holder[REGISTRY_KEY] ??= { current: null, scanned: null, grants: new Map(), grantsTicket: { issued: 0, applied: 0 }, running: null, queued: null });
}

/** Makes the snapshot the registry serves: the scanned skills with the secrets they are given applied. */
function publish(registry: RegistryState): void {
  if (!registry.scanned) return;
  const { skills, report } = registry.scanned;
  registry.current = createSkillRegistry(
    skills.map((skill) => withSecretGrants(skill, registry.grants)),
    report,
  );
}

/**
 * Reads the grants and keeps them unless a read started later was applied first (reads may finish out of
 * order). A failed read (the database unreachable, or not migrated yet) keeps the grants it had — none
 * at first, so a skill that needs a secret stays unavailable: it is logged, never thrown, and the next
 * change or scan reads them again.
 */
async function readGrants(registry: RegistryState): Promise<void> {
  const ticket = ++registry.grantsTicket.issued;
  let grants: SecretGrants;
  try {
    grants = await loadSecretGrants();
  } catch (error) {
    console.error(`loader: could not read which skills are given which secrets (${(error as Error).message.split("\n").filter(Boolean).at(-1) ?? "unknown error"}); skills that need a secret stay unavailable until they are read`);
    return;
  }
  if (ticket < registry.grantsTicket.applied) return;
  registry.grantsTicket.applied = ticket;
  registry.grants = grants;
}

async function scanInto(registry: RegistryState): Promise<LoaderReport> {
  const [{ skills, report }] = await Promise.all([scanSkills(config()), readGrants(registry)]);
  registry.scanned = { skills, report };
  publish(registry);
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

/**
 * Reads which skills are given which secrets again and swaps in a snapshot with them applied, without
 * scanning the roots (DESIGN.md "Skill secrets": a skill that needs a secret is available once it is
 * given it). Called after a secret changed here, and when another replica says one did (`secrets`).
 * Never throws: a failed read is logged and the snapshot keeps the secrets it had (readGrants).
 */
export async function refreshSecretGrants(): Promise<void> {
  const registry = state();
  await readGrants(registry);
  publish(registry);
}

onReplicaMessage("secrets", () => refreshSecretGrants());
// A change announced while this replica's LISTEN session was down was not heard.
onReplicaCatchUp("secrets", () => refreshSecretGrants());

/** Forgets the registry so the next getRegistry() scans again with the current settings (tests only). */
export function resetRegistryForTests(): void {
  (globalThis as Record<symbol, RegistryState | undefined>)[REGISTRY_KEY] = undefined;
}

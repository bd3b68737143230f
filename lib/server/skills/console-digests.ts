import { config, SCRIPT_SYSTEM_PATH } from "../env";
import { PlanError, readSkillDigest } from "./call-plan";
import type { RegisteredSkill } from "./registered-skill";
import type { SkillRegistry } from "./skill-registry";

/** The digest of the console's own copy of a skill, or the reason it has none. */
export type ConsoleDigest = { digest: string; error: null } | { digest: null; error: string };

interface DigestCache {
  registry: SkillRegistry | null;
  digests: Map<string, Promise<ConsoleDigest>>;
}

const CACHE_KEY = Symbol.for("skill-console.console-digests");
const cache = ((globalThis as Record<symbol, DigestCache | undefined>)[CACHE_KEY] ??= { registry: null, digests: new Map() });

/** Reads how many skill folders at once while digesting a registry. */
const CONCURRENCY = 8;

/**
 * The digest of the console's copy of `skill` (what a call made now is bound to; DESIGN.md: the skill
 * page shows which workers hold which digest, so drift is visible). Read once per registry snapshot
 * and cached; `noteDigest` refreshes it whenever a call reads the folder anew. Never rejects.
 */
export function consoleDigest(registry: SkillRegistry, skill: RegisteredSkill): Promise<ConsoleDigest> {
  if (cache.registry !== registry) {
    cache.registry = registry;
    cache.digests = new Map();
  }
  let entry = cache.digests.get(skill.name);
  if (!entry) {
    const settings = config();
    entry = readSkillDigest(skill, { scriptInterpreters: settings.scriptInterpreters, systemPath: SCRIPT_SYSTEM_PATH, limits: settings.skillFolderLimits }).then(
      (digest): ConsoleDigest => ({ digest: digest.digest, error: null }),
      (error: unknown): ConsoleDigest => ({ digest: null, error: error instanceof PlanError ? error.message : String(error) }),
    );
    cache.digests.set(skill.name, entry);
  }
  return entry;
}

/** Records the digest a call just computed from the console's copy, so drift shows what calls see. */
export function noteDigest(registry: SkillRegistry, skillName: string, digest: string): void {
  if (cache.registry !== registry) return;
  cache.digests.set(skillName, Promise.resolve({ digest, error: null }));
}

/**
 * The console's digests of many skills (the Workers page), read CONCURRENCY folders at a time. Returns
 * a map by skill name; skills the registry does not hold are left out.
 */
export async function consoleDigests(registry: SkillRegistry, names: readonly string[]): Promise<Map<string, ConsoleDigest>> {
  const result = new Map<string, ConsoleDigest>();
  const queue = names.filter((name) => registry.get(name) !== undefined);
  const next = async (): Promise<void> => {
    for (let name = queue.shift(); name !== undefined; name = queue.shift()) result.set(name, await consoleDigest(registry, registry.get(name)!));
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, next));
  return result;
}

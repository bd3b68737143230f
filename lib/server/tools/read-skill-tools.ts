import type { Persona } from "@/lib/types/persona";
import type { JsonSchema, NativeResources, NativeToolDeclaration, SkillClass, SkillKind } from "@/lib/types/skill";
import { config } from "../env";
import { AppError } from "../errors";
import { personaListsSkill } from "../personas/persona-skills";
import { searchSkills, type SearchableSkill, type SkillMatch } from "../search/skill-search";
import { readSkillResource } from "../skills/native/read-resource";
import type { RegisteredSkill } from "../skills/registered-skill";
import type { SkillRegistry } from "../skills/registry";
import { DEFAULT_SEARCH_LIMIT } from "./skill-tools";

/**
 * The skill named `name` if `persona` may see it (DESIGN.md "Policy": a skill outside the persona's
 * lists answers 403, not 404; the persona's `categories` filter native skills, seed 004 task 5.3).
 * Throws AppError `not_found` (404) for a name no skill has, `forbidden` (403) for a skill the
 * persona's allow/deny lists or categories leave out.
 */
export function visibleSkill(persona: Persona, registry: SkillRegistry, name: string): RegisteredSkill {
  const skill = registry.get(name);
  if (!skill) throw new AppError("not_found", `no skill named ${JSON.stringify(name)}`);
  if (!personaListsSkill(persona, skill)) {
    throw new AppError("forbidden", `persona ${persona.name} may not use skill ${skill.name} (outside its skills list${skill.kind === "native" && persona.categories ? " or categories" : ""})`);
  }
  return skill;
}

/** The level-1 search fields of every skill of a registry snapshot, one array per snapshot (searchSkills caches its index per array). */
const searchableSkills = new WeakMap<SkillRegistry, SearchableSkill[]>();

function searchableSkillsOf(registry: SkillRegistry): SearchableSkill[] {
  let skills = searchableSkills.get(registry);
  if (!skills) {
    skills = registry.list().map((skill) => ({
      name: skill.name,
      description: skill.description,
      category: skill.category,
      whenToUse: skill.kind === "native" ? skill.whenToUse : null,
      kind: skill.kind,
      available: skill.available,
    }));
    searchableSkills.set(registry, skills);
  }
  return skills;
}

/** Per registry snapshot, the searchable skills each set of persona lists lets a persona see (skillsListedFor). */
const listedSkills = new WeakMap<SkillRegistry, Map<string, Set<SearchableSkill>>>();
/** Most list sets kept per snapshot (personas are few; past this the cache starts again). */
const MAX_LISTED_PER_REGISTRY = 64;

/**
 * The skills of `skills` (the registry snapshot's searchable list) that `persona`'s allow/deny lists and
 * categories let it see (personaListsSkill, a pure function of those three and the skill), computed once
 * per snapshot and content of the lists: a search visits thousands of results of a 10,000-skill
 * registry, and matching each against the persona's globs cost ~0.4 ms per search (bench profile).
 */
function skillsListedFor(persona: Persona, registry: SkillRegistry, skills: readonly SearchableSkill[]): Set<SearchableSkill> {
  let byLists = listedSkills.get(registry);
  if (!byLists) {
    byLists = new Map();
    listedSkills.set(registry, byLists);
  }
  const key = JSON.stringify([persona.skills.allow, persona.skills.deny, persona.categories ?? null]);
  let listed = byLists.get(key);
  if (!listed) {
    if (byLists.size >= MAX_LISTED_PER_REGISTRY) byLists.clear();
    listed = new Set(skills.filter((skill) => personaListsSkill(persona, skill)));
    byLists.set(key, listed);
  }
  return listed;
}

/**
 * `skill_search` (seed 004 task 4.2, issue 5 point 3): ranks the skills of both kinds the persona may
 * see (personaListsSkill, applied before scoring; unavailable ones included, their runs answer 409) by
 * relevance of their level-1 fields to `query` (searchSkills). Returns `{matches}` best first, at most
 * `limit` (default 10), each with a confidence in (0, 1] rounded to two decimals and `available`
 * (unavailable skills rank below available ones of similar confidence).
 */
export function skillSearch(persona: Persona, registry: SkillRegistry, query: string, limit: number = DEFAULT_SEARCH_LIMIT): { matches: SkillMatch[] } {
  const skills = searchableSkillsOf(registry);
  const listed = skillsListedFor(persona, registry, skills);
  const matches = searchSkills(query, skills, { limit, filter: (skill) => listed.has(skill) })
    .filter((match) => match.confidence > 0)
    .slice(0, limit)
    .map(({ name, description, category, confidence, available }) => ({ name, description, category, confidence, available }));
  return { matches };
}

/** What skill_load returns for a native skill (level 2 of seed 004's progressive loading). */
export interface LoadedNativeSkill {
  name: string;
  kind: "native";
  category: string;
  description: string;
  whenToUse: string | null;
  /** The class its scripts run under (declared class, or mutating when it declares none). */
  class: SkillClass;
  instructions: string;
  resources: NativeResources;
  tools: NativeToolDeclaration[];
  available: boolean;
  unavailableReason: string | null;
  warnings: string[];
}

/** What skill_load returns for a subprocess skill: enough to call it as its own tool. */
export interface LoadedSubprocessSkill {
  name: string;
  kind: Exclude<SkillKind, "native">;
  description: string;
  category: string;
  class: SkillClass;
  schema: JsonSchema;
}

/**
 * `skill_load` (seed 004 task 4.3): the level-2 view of a skill the persona may see (visibleSkill:
 * 404 unknown, 403 outside its lists). Native: instructions, resources, declared tools, class and
 * availability; subprocess: its args schema. Reading is always safe (DESIGN.md), so no policy decision.
 */
export function skillLoad(persona: Persona, registry: SkillRegistry, skillName: string): LoadedNativeSkill | LoadedSubprocessSkill {
  const skill = visibleSkill(persona, registry, skillName);
  if (skill.kind === "subprocess") {
    return { name: skill.name, kind: skill.kind, description: skill.description, category: skill.category, class: skill.class, schema: skill.schema };
  }
  return {
    name: skill.name,
    kind: skill.kind,
    category: skill.category,
    description: skill.description,
    whenToUse: skill.whenToUse,
    class: skill.class,
    instructions: skill.instructions,
    resources: skill.resources,
    tools: skill.tools,
    available: skill.available,
    unavailableReason: skill.unavailableReason,
    warnings: skill.warnings,
  };
}

/**
 * `skill_read_resource` (seed 004 task 4.4): any file of a native skill's folder but SKILL.md and hidden
 * files (readSkillResource: `..`, encodings and symlinks resolved; text up to
 * SKILL_RESOURCE_LIMIT_BYTES, binary described). Throws AppError 404 for an unknown skill or file, 403
 * for a skill outside the persona's lists, 400 `bad_request` for a subprocess skill (it has no resources).
 */
export async function skillReadResource(persona: Persona, registry: SkillRegistry, skillName: string, path: string) {
  const skill = visibleSkill(persona, registry, skillName);
  if (skill.kind !== "native") {
    throw new AppError("bad_request", `${skill.name} is a subprocess skill: it has no resource files (call it as its own tool)`);
  }
  return readSkillResource(skill, path, config().resourceLimitBytes);
}

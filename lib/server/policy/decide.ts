import { decide, type Decision } from "@/lib/policy/policy-table";
import type { PermissionMode } from "@/lib/types/persona";
import type { SkillClass } from "@/lib/types/skill";
import { categoriesAllow, listsAllow, type ListedSkill } from "./skill-lists";

export type { PermissionMode } from "@/lib/types/persona";
export { decide, type Decision } from "@/lib/policy/policy-table";

/** The part of a persona the decision reads. */
export interface PersonaPolicy {
  name: string;
  permission_mode: PermissionMode;
  skills: { allow: readonly string[]; deny: readonly string[] };
  /** Categories of native skills it loads; absent = all. */
  categories?: readonly string[];
}

/**
 * The one policy decision of the console (issue 4 point 3), used by every entry point (UI, REST, LLM
 * tools, MCP): first the persona's `skills.deny` / `skills.allow` lists (deny wins; no allow entry =
 * nothing allowed) and, for a native skill, its `categories`, then DESIGN.md's table for the persona's permission mode and the skill's class.
 * Pure: same inputs, same answer. Returns run / confirm / dual_sign / deny with a reason naming the
 * persona and the rule.
 */
export function decideCall(persona: PersonaPolicy, skill: ListedSkill & { class: SkillClass }): Decision {
  const lists = listsAllow(persona.skills, skill, persona.name);
  if (!lists.allowed) return { outcome: "deny", reason: lists.reason };
  const categories = categoriesAllow(persona.categories, skill, persona.name);
  if (!categories.allowed) return { outcome: "deny", reason: categories.reason };
  const decision = decide(persona.permission_mode, skill.class);
  return { outcome: decision.outcome, reason: `persona ${persona.name} (${persona.permission_mode}): ${decision.reason}` } as Decision;
}

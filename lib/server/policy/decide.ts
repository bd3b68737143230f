import type { SkillClass } from "@/lib/types/skill";
import { categoriesAllow, listsAllow, type ListedSkill } from "./skill-lists";

/** A persona's permission mode (DESIGN.md "Concepts"). */
export type PermissionMode = "read-only" | "mutating-with-confirm" | "dual-sign-required";

/** What the policy says about one call. */
export type Decision =
  | { outcome: "run"; reason: string }
  | { outcome: "confirm"; reason: string }
  | { outcome: "dual_sign"; reason: string }
  | { outcome: "deny"; reason: string };

/**
 * The pure decision of DESIGN.md's policy table for a persona of `mode` calling a skill of `skillClass`:
 * safe runs everywhere; mutating is denied to read-only and needs one person's confirmation otherwise;
 * dangerous runs only under dual-sign-required, after two approvers sign. Allow/deny lists are applied
 * before this by the caller (persona issue).
 */
export function decide(mode: PermissionMode, skillClass: SkillClass): Decision {
  if (skillClass === "safe") return { outcome: "run", reason: "safe skills run under every permission mode" };
  if (skillClass === "mutating") {
    return mode === "read-only"
      ? { outcome: "deny", reason: "a read-only persona may not run mutating skills" }
      : { outcome: "confirm", reason: "a mutating skill runs after one person confirms it" };
  }
  return mode === "dual-sign-required"
    ? { outcome: "dual_sign", reason: "a dangerous skill runs after two distinct approvers sign" }
    : { outcome: "deny", reason: `a ${mode} persona may not run dangerous skills` };
}

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

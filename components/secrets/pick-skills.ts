import { filterSkills, type IndexedSkill } from "@/components/skills/filter-skills";
import type { Skill } from "@/lib/types/skill";

/** What the skill picker lists for one filter: the first `limit` matches and how many there are in all. */
export interface SkillChoices {
  choices: Skill[];
  total: number;
}

/**
 * The skills a secret may be given to that match `query` (every word in the name, description or
 * category: filterSkills), those that need `secretName` (their `secretsNeeded`) first, then the others
 * in the server's order (category, name); at most `limit` of them, with the count of all matches. A
 * thousand skills cost one pass over the precomputed index per keystroke. Pure.
 */
export function pickableSkills(index: readonly IndexedSkill[], query: string, secretName: string, limit: number): SkillChoices {
  const matches = filterSkills(index, query);
  const needing = secretName === "" ? [] : matches.filter((skill) => skill.secretsNeeded.includes(secretName));
  const ordered = needing.length === 0 ? matches : [...needing, ...matches.filter((skill) => !skill.secretsNeeded.includes(secretName))];
  return { choices: ordered.slice(0, limit), total: matches.length };
}

/**
 * The skill Enter in the picker's filter adds: the skill named exactly `query` (trimmed) when there is
 * one and it is not chosen yet, else the first of `choices` not chosen yet; null when there is none. Pure.
 */
export function skillToAdd(query: string, choices: readonly Skill[], chosen: readonly string[], index: readonly IndexedSkill[]): string | null {
  const wanted = query.trim();
  const exact = index.find((entry) => entry.skill.name === wanted);
  if (exact) return chosen.includes(exact.skill.name) ? null : exact.skill.name;
  return choices.find((skill) => !chosen.includes(skill.name))?.name ?? null;
}

/**
 * The name typed in the picker's filter when no registered skill has it (trimmed, one word, not chosen
 * yet): a secret may be given to a skill before it is installed (a pack enabled later). Null otherwise. Pure.
 */
export function unregisteredName(query: string, chosen: readonly string[], index: readonly IndexedSkill[]): string | null {
  const wanted = query.trim();
  if (wanted === "" || /\s/.test(wanted) || chosen.includes(wanted)) return null;
  return index.some((entry) => entry.skill.name === wanted) ? null : wanted;
}

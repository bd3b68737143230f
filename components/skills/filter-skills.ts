import type { Skill } from "@/lib/types/skill";

/** Skills of one category, in the order they were given. */
export interface SkillGroup {
  category: string;
  skills: Skill[];
}

/** A skill with its lowercase search text (`name\ndescription\ncategory`), computed once per skill list. */
export interface IndexedSkill {
  skill: Skill;
  haystack: string;
}

/**
 * Precomputes the lowercase haystack of every skill (in order), so that each keystroke of the filter
 * only runs `includes` over ready strings — 5,000 skills filter in well under a frame.
 */
export function indexSkills(skills: readonly Skill[]): IndexedSkill[] {
  return skills.map((skill) => ({ skill, haystack: `${skill.name}\n${skill.description}\n${skill.category}`.toLowerCase() }));
}

/**
 * The skills of `category` (exact; every category when empty) whose name, description or category
 * contain every whitespace-separated word of `query` (case-insensitive; all of them for a blank
 * query). Order is kept. Takes the raw list or, cheaper per keystroke, its indexSkills result.
 */
export function filterSkills(skills: readonly Skill[] | readonly IndexedSkill[], query: string, category = ""): Skill[] {
  const index = isIndexed(skills) ? skills : indexSkills(skills as readonly Skill[]);
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  const matches: Skill[] = [];
  for (const { skill, haystack } of index) {
    if (category !== "" && skill.category !== category) continue;
    if (words.every((word) => haystack.includes(word))) matches.push(skill);
  }
  return matches;
}

function isIndexed(skills: readonly Skill[] | readonly IndexedSkill[]): skills is readonly IndexedSkill[] {
  const first = skills[0];
  return first !== undefined && "haystack" in first;
}

/** Groups `skills` by category, categories in order of first appearance (the server sorts by category, name). */
export function groupByCategory(skills: readonly Skill[]): SkillGroup[] {
  const groups = new Map<string, Skill[]>();
  for (const skill of skills) {
    const group = groups.get(skill.category);
    if (group) group.push(skill);
    else groups.set(skill.category, [skill]);
  }
  return Array.from(groups, ([category, members]) => ({ category, skills: members }));
}

/** One row of the flattened, windowed skills list: a category heading or a skill. */
export type SkillListItem = { kind: "category"; category: string; count: number } | { kind: "skill"; skill: Skill };

/** Flattens groups into list rows: each category's heading row, then its skills. */
export function flattenGroups(groups: readonly SkillGroup[]): SkillListItem[] {
  const items: SkillListItem[] = [];
  for (const group of groups) {
    items.push({ kind: "category", category: group.category, count: group.skills.length });
    for (const skill of group.skills) items.push({ kind: "skill", skill });
  }
  return items;
}

/** The skills list narrowed to one category: `/skills?category=…` (the list shows it as a removable chip). */
export function categoryHref(category: string): string {
  return `/skills?category=${encodeURIComponent(category)}`;
}

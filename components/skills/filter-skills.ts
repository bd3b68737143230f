import type { Skill } from "@/lib/types/skill";

/** Skills of one category, in the order they were given. */
export interface SkillGroup {
  category: string;
  skills: Skill[];
}

/**
 * The skills of `category` (exact; every category when empty) whose name, description or category
 * contain every whitespace-separated word of `query` (case-insensitive; all of them for a blank
 * query). Order is kept.
 */
export function filterSkills(skills: readonly Skill[], query: string, category = ""): Skill[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0 && category === "") return skills.slice();
  return skills.filter((skill) => {
    if (category !== "" && skill.category !== category) return false;
    const haystack = `${skill.name}\n${skill.description}\n${skill.category}`.toLowerCase();
    return words.every((word) => haystack.includes(word));
  });
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

/** The skills list narrowed to one category: `/skills?category=…` (the list shows it as a removable chip). */
export function categoryHref(category: string): string {
  return `/skills?category=${encodeURIComponent(category)}`;
}

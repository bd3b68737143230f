import type { LoaderReport } from "@/lib/types/skill";
import type { RegisteredSkill } from "./registered-skill";
import { deepFreeze } from "./deep-freeze";

/** Filters of `GET /api/v1/skills` (DESIGN.md "HTTP interface"). */
export interface SkillFilter {
  /** Exact category. */
  category?: string;
  /** Case-insensitive substring of the name, description or category. */
  q?: string;
}

/** One immutable snapshot of every registered skill and the scan report that produced it. */
export interface SkillRegistry {
  /** Skills matching the filter, sorted by category then name. */
  list(filter?: SkillFilter): RegisteredSkill[];
  /** The skill with this exact name, or undefined. */
  get(name: string): RegisteredSkill | undefined;
  /** The loader report of the scan behind this snapshot. */
  report(): LoaderReport;
  /** Distinct categories of the registered skills, sorted. */
  categories(): string[];
}

function byCategoryThenName(a: RegisteredSkill, b: RegisteredSkill): number {
  if (a.category !== b.category) return a.category < b.category ? -1 : 1;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/**
 * Makes a registry snapshot from a scan's skills (names must be unique; the loaders guarantee it) and
 * report. Skills and report are deep-frozen so no caller can alter what others (or an approval's
 * digest, or the validator cache keyed by schema object) see. Pure apart from freezing its inputs.
 */
export function createSkillRegistry(skills: readonly RegisteredSkill[], report: LoaderReport): SkillRegistry {
  const sorted = deepFreeze([...skills].sort(byCategoryThenName));
  const byName = new Map(sorted.map((skill) => [skill.name, skill]));
  const categories = [...new Set(sorted.map((skill) => skill.category))].sort();
  deepFreeze(report);
  return {
    list(filter = {}) {
      const q = filter.q?.trim().toLowerCase() ?? "";
      return sorted.filter(
        (skill) =>
          (filter.category === undefined || skill.category === filter.category) &&
          (q === "" || [skill.name, skill.description, skill.category].some((text) => text.toLowerCase().includes(q))),
      );
    },
    get: (name) => byName.get(name),
    report: () => report,
    categories: () => [...categories],
  };
}

/**
 * Timing of `skill_search` over 5,000 generated skills (not a test: measures, never asserts).
 * Run: `npx vitest bench --run tests/search/skill-search.bench.ts`
 */
import { bench, describe } from "vitest";
import { searchSkills, skillIndexFor, type SearchableSkill } from "@/lib/server/search/skill-search";
import { SEARCH_FIXTURE_SKILLS } from "./skill-fixtures";

const VERBS = ["deploy", "check", "rotate", "backup", "restore", "scan", "list", "clean", "restart", "report"];
const OBJECTS = ["service", "logs", "disk", "ports", "database", "certificates", "containers", "users", "metrics", "files"];
const CATEGORIES = ["devops", "system", "network", "analysis", "data", "security", "communication"];

/** 5,000 skills: the fixture set plus generated ones with realistic, overlapping words. */
function generateSkills(count: number): SearchableSkill[] {
  const skills: SearchableSkill[] = [...SEARCH_FIXTURE_SKILLS];
  for (let i = skills.length; i < count; i += 1) {
    const verb = VERBS[i % VERBS.length]!;
    const object = OBJECTS[Math.floor(i / VERBS.length) % OBJECTS.length]!;
    skills.push({
      name: `${verb}-${object}-${i}`,
      description: `${verb} the ${object} of host group ${i % 97} and write a summary of what changed (${i}).`,
      category: CATEGORIES[i % CATEGORIES.length]!,
      whenToUse: i % 2 === 0 ? `When the operator asks to ${verb} ${object}.` : null,
      kind: i % 3 === 0 ? "subprocess" : "native",
    });
  }
  return skills;
}

const SKILLS = generateSkills(5000);
skillIndexFor(SKILLS);
const QUERIES = ["deploy", "analyze logs errors", "free disk space", "deplyo", "desplegar servicio", "restart service"];

describe("skill_search over 5,000 skills", () => {
  bench("build the index (once per registry snapshot)", () => {
    skillIndexFor([...SKILLS]);
  }, { iterations: 10 });

  bench("one query on the cached index (6 queries round-robin)", () => {
    for (const query of QUERIES) searchSkills(query, SKILLS);
  }, { iterations: 50 });
});

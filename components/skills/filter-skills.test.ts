import { describe, expect, it } from "vitest";
import type { Skill } from "@/lib/types/skill";
import { filterSkills, flattenGroups, groupByCategory, indexSkills } from "./filter-skills";

function skill(name: string, category: string, description = ""): Skill {
  return {
    name,
    kind: "subprocess",
    description,
    category,
    class: "safe",
    schema: {},
    timeoutSeconds: 30,
    envAllow: [],
    source: { root: "/r", path: `/r/${name}` },
    available: true,
    unavailableReason: null,
    warnings: [],
    sandbox: { read: [], write: [], network: true, devices: [], hostPids: false },
    secretsNeeded: [],
    secretsGiven: [],
  };
}

const SKILLS = [skill("disk_usage", "ops", "Free space per mount"), skill("log_scan", "ops", "Scan a LOG file"), skill("uptime", "system")];

describe("filterSkills", () => {
  it.each([
    ["", "", ["disk_usage", "log_scan", "uptime"]],
    ["LOG", "", ["log_scan"]],
    ["scan file", "", ["log_scan"]],
    ["ops", "", ["disk_usage", "log_scan"]],
    ["", "system", ["uptime"]],
    ["disk", "system", []],
  ])("query %j in category %j keeps %j", (query, category, names) => {
    expect(filterSkills(SKILLS, query, category).map((s) => s.name)).toEqual(names);
    expect(filterSkills(indexSkills(SKILLS), query, category).map((s) => s.name)).toEqual(names);
  });

  // Exact results over 5,000 skills; how fast is for benchmarks, never a test's assertion (it failed CI under load).
  it("filters 5,000 indexed skills", () => {
    const many = Array.from({ length: 5000 }, (_, i) => skill(`skill_${i}`, `cat_${i % 50}`, `Does thing ${i}`));
    const index = indexSkills(many);
    expect(filterSkills(index, "thing 4242").map((s) => s.name)).toEqual(["skill_4242"]);
    expect(filterSkills(index, "", "cat_7")).toHaveLength(100);
  });
});

describe("flattenGroups", () => {
  it("puts each category heading before its skills", () => {
    const items = flattenGroups(groupByCategory(SKILLS));
    expect(items.map((item) => (item.kind === "category" ? `# ${item.category} ${item.count}` : item.skill.name))).toEqual([
      "# ops 2",
      "disk_usage",
      "log_scan",
      "# system 1",
      "uptime",
    ]);
  });
});

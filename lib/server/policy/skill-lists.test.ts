import { describe, expect, it } from "vitest";
import { listsAllow, matchesSkillPattern } from "./skill-lists";

const diskUsage = { name: "disk_usage", category: "ops" };

describe("matchesSkillPattern", () => {
  const cases: Array<[string, { name: string; category: string }, boolean]> = [
    ["*", diskUsage, true],
    ["disk_usage", diskUsage, true],
    ["disk_usag", diskUsage, false],
    ["disk_*", diskUsage, true],
    ["disk_*", { name: "disk_cleaner", category: "system" }, true],
    ["disk_*", { name: "mydisk_usage", category: "ops" }, false],
    ["*_usage", diskUsage, true],
    ["disk_?sage", diskUsage, true],
    ["category:ops", diskUsage, true],
    ["category:op", diskUsage, false],
    ["category:o*", diskUsage, true],
    ["category:o*", { name: "x", category: "observability" }, true],
    ["category:o*", { name: "x", category: "system" }, false],
    ["category:*", diskUsage, true],
    ["category:", diskUsage, false],
    ["ops", diskUsage, false],
    ["category:disk_usage", diskUsage, false],
    ["DISK_USAGE", diskUsage, false],
    [" disk_usage ", diskUsage, true],
    // A leading "!" is a literal, never a negation that would match every other skill.
    ["!disk_usage", { name: "log_tail", category: "logs" }, false],
    ["!disk_usage", diskUsage, false],
    // Braces and extglobs are not list syntax.
    ["{disk_usage,log_tail}", diskUsage, false],
    ["@(disk_usage)", diskUsage, false],
  ];

  it.each(cases)("%j against %j -> %s", (pattern, skill, expected) => {
    expect(matchesSkillPattern(pattern, skill)).toBe(expected);
  });

  it("gives the same answers when a compiled pattern is reused", () => {
    for (let round = 0; round < 3; round++) {
      expect(matchesSkillPattern("disk_*", diskUsage)).toBe(true);
      expect(matchesSkillPattern("disk_*", { name: "log_tail", category: "ops" })).toBe(false);
    }
  });
});

describe("listsAllow", () => {
  it("deny wins over allow and names the deny entry", () => {
    expect(listsAllow({ allow: ["*"], deny: ["disk_*"] }, diskUsage, "p")).toEqual({ allowed: false, reason: 'persona p denies disk_usage (skills.deny: "disk_*")' });
  });

  it("an empty allow list allows nothing, even with no deny", () => {
    expect(listsAllow({ allow: [], deny: [] }, diskUsage, "p")).toEqual({ allowed: false, reason: "persona p allows no skills (empty skills.allow)" });
  });

  it("names the first allow entry that matches", () => {
    expect(listsAllow({ allow: ["log_*", "category:ops", "*"], deny: ["kill_process"] }, diskUsage, "p")).toEqual({ allowed: true, reason: 'allowed by skills.allow entry "category:ops"' });
  });

  it("refuses a skill no allow entry matches", () => {
    expect(listsAllow({ allow: ["log_*"], deny: [] }, diskUsage, "p")).toEqual({ allowed: false, reason: "disk_usage is not in persona p's skills.allow" });
  });
});

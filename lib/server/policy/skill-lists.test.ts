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

describe("matchesSkillPattern against hostile and random entries", () => {
  it("answers a many-star entry against a 200-character name at once (it took 9 s as a RegExp)", () => {
    const name = "a".repeat(200);
    const started = performance.now();
    expect(matchesSkillPattern("a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*c", { name, category: "x" })).toBe(false);
    expect(matchesSkillPattern(`category:${"a*".repeat(99)}c`, { name: "x", category: name })).toBe(false);
    expect(matchesSkillPattern("a*a*a*a*a*a*a*a*a", { name, category: "x" })).toBe(true);
    // Not a timing assertion: only the exponential case (seconds) trips it.
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it("agrees with a reference regular expression on 20,000 random entries and names", () => {
    const reference = (glob: string, value: string) =>
      new RegExp(`^${glob.replace(/[.*+?^${}()|[\]\\/]/g, (c) => (c === "*" ? "[\\s\\S]*" : c === "?" ? "[\\s\\S]" : `\\${c}`))}$`, "u").test(value);
    const alphabet = ["a", "b", "*", "?", "é", "😀", "."];
    let seed = 42;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const word = (letters: string[], length: number) => Array.from({ length }, () => letters[random(letters.length)]).join("");
    let mismatches = 0;
    for (let i = 0; i < 20_000; i++) {
      const glob = word(alphabet, 1 + random(7));
      const name = word(["a", "b", "é", "😀", ".", "*", "?"], random(9));
      if (matchesSkillPattern(glob, { name, category: "" }) !== reference(glob, name)) mismatches++;
    }
    expect(mismatches).toBe(0);
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

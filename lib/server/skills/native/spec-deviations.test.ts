import { describe, expect, it } from "vitest";
import { specDeviations } from "./spec-deviations";

describe("specDeviations", () => {
  const cases: Array<[string, Record<string, unknown>, string[]]> = [
    ["a strictly valid frontmatter", { name: "pdf", description: "d", license: "MIT", compatibility: "needs python3", metadata: { author: "x" }, "allowed-tools": "Bash Read" }, []],
    ["a missing name and description", {}, ["name is missing (required)", "description is missing (required)"]],
    ["a name with a leading hyphen", { name: "-pdf", description: "d" }, ['name "-pdf" is not only lowercase letters, digits and single inner hyphens', 'name "-pdf" is not its folder\'s name "pdf"']],
    ["a name with two hyphens in a row", { name: "p--df", description: "d" }, ['name "p--df" is not only lowercase letters, digits and single inner hyphens', 'name "p--df" is not its folder\'s name "pdf"']],
    ["a 65-character name", { name: "a".repeat(65), description: "d" }, ["name is 65 characters, longer than 64", `name "${"a".repeat(65)}" is not its folder's name "pdf"`]],
    ["an empty description", { name: "pdf", description: "  " }, ["description is empty"]],
    ["a 1025-character description", { name: "pdf", description: "x".repeat(1025) }, ["description is 1025 characters, longer than 1024"]],
    ["a numeric license", { name: "pdf", description: "d", license: 2 }, ["license is a number, not a string"]],
    ["a 501-character compatibility", { name: "pdf", description: "d", compatibility: "x".repeat(501) }, ["compatibility is 501 characters; 1 to 500 are allowed"]],
    ["metadata as a list", { name: "pdf", description: "d", metadata: ["a"] }, ["metadata is a list, not a mapping"]],
    ["a null metadata value", { name: "pdf", description: "d", metadata: { a: null } }, ["metadata.a is null, not a string"]],
    ["allowed-tools as a list", { name: "pdf", description: "d", "allowed-tools": ["Bash"] }, ["allowed-tools is a list, not a space-separated string"]],
    [
      "fields the console and OpenClaw read, and others",
      { name: "pdf", description: "d", class: "safe", primaryEnv: "X", version: "1" },
      ['field "class" is not in the specification (the console reads it)', 'field "primaryEnv" is not in the specification (the console reads it as OpenClaw gating)', 'field "version" is not in the specification'],
    ],
  ];
  for (const [what, frontmatter, expected] of cases) {
    it(what, () => expect(specDeviations(frontmatter, "pdf")).toEqual(expected));
  }
});

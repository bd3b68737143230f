import { describe, expect, it } from "vitest";
import { personaListsSkill } from "./persona-skills";

const persona = { name: "p", skills: { allow: ["category:ops", "disk_*"], deny: ["kill_process"] }, categories: ["ops"] };

describe("personaListsSkill (the persona filter of GET /api/v1/skills)", () => {
  const cases: Array<[string, { name: string; category: string; kind: "subprocess" | "native" }, typeof persona | Omit<typeof persona, "categories">, boolean]> = [
    ["an allowed subprocess skill", { name: "disk_usage", category: "system", kind: "subprocess" }, persona, true],
    ["a denied skill", { name: "kill_process", category: "ops", kind: "subprocess" }, persona, false],
    ["a skill outside the allow list", { name: "log_tail", category: "logs", kind: "subprocess" }, persona, false],
    // categories filter native skills only (seed 004); subprocess skills answer to the lists alone.
    ["an allowed native skill of a listed category", { name: "restart", category: "ops", kind: "native" }, persona, true],
    ["an allowed native skill of another category", { name: "disk_check", category: "system", kind: "native" }, persona, false],
    ["an allowed native skill when categories is absent", { name: "disk_check", category: "system", kind: "native" }, { name: "p", skills: persona.skills }, true],
  ];

  it.each(cases)("%s", (_title, skill, who, expected) => {
    expect(personaListsSkill(who, skill)).toBe(expected);
  });
});

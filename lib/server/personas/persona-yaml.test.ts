import { describe, expect, it } from "vitest";
import type { PersonaInput } from "./persona-input";
import { formatPersonasYaml, parsePersonasYaml } from "./persona-yaml";

const tricky: PersonaInput[] = [
  {
    name: "ops-oncall",
    description: "On-call operator agent",
    permission_mode: "dual-sign-required",
    skills: { allow: ["category:ops", "disk_*"], deny: ["kill_process"] },
    categories: ["ops", "system"],
  },
  {
    name: "strings",
    // Values YAML would otherwise read as other types, or that need quoting.
    description: 'yes: no # not a comment\n"quoted" & *alias-like* {braces} [brackets]\n  indented line',
    permission_mode: "read-only",
    skills: { allow: ["*", "null", "123", "true", "category:*", "- dash"], deny: ["~", "a b", "'single'"] },
    categories: ["2026-01-01", "on"],
  },
  { name: "empty", description: "", permission_mode: "mutating-with-confirm", skills: { allow: [], deny: [] } },
];

describe("persona YAML", () => {
  it("parses what it formats back to the same personas", () => {
    expect(parsePersonasYaml(formatPersonasYaml(tricky))).toEqual(tricky);
  });

  it("writes the issue's format: five fields in order, flow lists, categories only when set", () => {
    expect(formatPersonasYaml([tricky[0]!, tricky[2]!])).toBe(`- name: ops-oncall
  description: On-call operator agent
  permission_mode: dual-sign-required
  skills:
    allow: [category:ops, disk_*]
    deny: [kill_process]
  categories: [ops, system]
- name: empty
  description: ""
  permission_mode: mutating-with-confirm
  skills:
    allow: []
    deny: []
`);
  });

  it("reads a single mapping as a list of one", () => {
    expect(parsePersonasYaml("name: solo\npermission_mode: read-only\n")).toEqual([{ name: "solo", description: "", permission_mode: "read-only", skills: { allow: [], deny: [] } }]);
  });

  it("refuses a __proto__ key as an unknown field rather than changing the object's prototype", () => {
    expect(() => parsePersonasYaml("name: p\npermission_mode: read-only\n__proto__: {polluted: true}\n")).toThrow('persona #1 ("p"): __proto__ is not a persona field');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

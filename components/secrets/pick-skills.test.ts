import { describe, expect, it } from "vitest";
import { indexSkills } from "@/components/skills/filter-skills";
import type { Skill } from "@/lib/types/skill";
import { pickableSkills, skillToAdd, unregisteredName } from "./pick-skills";

function skill(name: string, category: string, secretsNeeded: string[] = []): Skill {
  return {
    name,
    kind: secretsNeeded.length > 0 ? "native" : "subprocess",
    description: `the ${name} skill`,
    category,
    class: "safe",
    schema: {},
    timeoutSeconds: 30,
    envAllow: [],
    source: { root: "/r", path: `/r/${name}` },
    available: secretsNeeded.length === 0,
    unavailableReason: null,
    warnings: [],
    sandbox: { read: [], write: [], network: true, devices: [], hostPids: false },
    secretsNeeded,
    secretsGiven: [],
  };
}

const INDEX = indexSkills([skill("disk_usage", "ops"), skill("openai-tts", "ai", ["OPENAI_API_KEY"]), skill("uptime", "system"), skill("whisper", "ai", ["OPENAI_API_KEY", "HF_TOKEN"])]);
const names = (skills: readonly Skill[]) => skills.map((entry) => entry.name);

describe("pickableSkills", () => {
  it.each([
    { query: "", secret: "", limit: 10, shown: ["disk_usage", "openai-tts", "uptime", "whisper"], total: 4 },
    { query: "", secret: "OPENAI_API_KEY", limit: 10, shown: ["openai-tts", "whisper", "disk_usage", "uptime"], total: 4 },
    { query: "", secret: "HF_TOKEN", limit: 2, shown: ["whisper", "disk_usage"], total: 4 },
    { query: "ai", secret: "OPENAI_API_KEY", limit: 10, shown: ["openai-tts", "whisper"], total: 2 },
    { query: "UP", secret: "OPENAI_API_KEY", limit: 10, shown: ["uptime"], total: 1 },
    { query: "nothing like it", secret: "", limit: 10, shown: [], total: 0 },
  ])("$query / $secret / $limit → $shown of $total", ({ query, secret, limit, shown, total }) => {
    const result = pickableSkills(INDEX, query, secret, limit);
    expect(names(result.choices)).toEqual(shown);
    expect(result.total).toBe(total);
  });

  it("keeps a thousand skills to the limit and counts them all", () => {
    const many = indexSkills(Array.from({ length: 1000 }, (_, n) => skill(`skill_${String(n).padStart(4, "0")}`, "bulk", n === 999 ? ["KEY"] : [])));
    const result = pickableSkills(many, "skill", "KEY", 50);
    expect(result.total).toBe(1000);
    expect(result.choices).toHaveLength(50);
    expect(result.choices[0]?.name).toBe("skill_0999");
  });
});

describe("skillToAdd", () => {
  const choices = pickableSkills(INDEX, "", "OPENAI_API_KEY", 10).choices;
  it.each([
    { query: "uptime", chosen: [], added: "uptime" },
    { query: " uptime ", chosen: ["uptime"], added: null },
    { query: "", chosen: [], added: "openai-tts" },
    { query: "", chosen: ["openai-tts"], added: "whisper" },
    { query: "", chosen: ["openai-tts", "whisper", "disk_usage", "uptime"], added: null },
  ])("$query with $chosen chosen adds $added", ({ query, chosen, added }) => {
    expect(skillToAdd(query, choices, chosen, INDEX)).toBe(added);
  });
});

describe("unregisteredName", () => {
  it.each([
    { query: "not-installed-yet", chosen: [], name: "not-installed-yet" },
    { query: "  spaced  ", chosen: [], name: "spaced" },
    { query: "uptime", chosen: [], name: null },
    { query: "two words", chosen: [], name: null },
    { query: "", chosen: [], name: null },
    { query: "later", chosen: ["later"], name: null },
  ])("$query → $name", ({ query, chosen, name }) => {
    expect(unregisteredName(query, chosen, INDEX)).toBe(name);
  });
});

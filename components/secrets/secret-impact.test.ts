import { describe, expect, it } from "vitest";
import type { Skill } from "@/lib/types/skill";
import { secretChangeImpact } from "./secret-impact";

function skill(name: string, secretsNeeded: string[] = [], secretsGiven: string[] = []): Skill {
  return {
    name,
    kind: "native",
    description: "",
    category: "ai",
    class: "safe",
    schema: {},
    timeoutSeconds: 30,
    envAllow: [],
    source: { root: "/r", path: `/r/${name}` },
    available: secretsNeeded.every((secret) => secretsGiven.includes(secret)),
    unavailableReason: null,
    warnings: [],
    sandbox: { read: [], write: [], network: true, devices: [], hostPids: false },
    secretsNeeded,
    secretsGiven,
  };
}

const SKILLS = [skill("tts", ["API_KEY"], ["API_KEY"]), skill("stt", ["API_KEY", "HF_TOKEN"]), skill("plain"), skill("other", ["OTHER_KEY"])];

describe("secretChangeImpact", () => {
  it.each([
    { case: "a creation", before: [], after: ["tts", "plain"], value: true, impact: { losing: [], gaining: ["tts", "plain"], disabled: [], voided: ["tts", "plain"] } },
    { case: "a deletion", before: ["tts", "stt", "plain", "gone"], after: [], value: true, impact: { losing: ["tts", "stt", "plain", "gone"], gaining: [], disabled: ["tts", "stt"], voided: ["tts", "stt", "plain", "gone"] } },
    { case: "skills only", before: ["tts", "plain"], after: ["plain", "stt"], value: false, impact: { losing: ["tts"], gaining: ["stt"], disabled: ["tts"], voided: ["tts", "stt"] } },
    { case: "a new value only", before: ["tts", "plain"], after: ["tts", "plain"], value: true, impact: { losing: [], gaining: [], disabled: [], voided: ["tts", "plain"] } },
    { case: "nothing", before: ["tts"], after: ["tts"], value: false, impact: { losing: [], gaining: [], disabled: [], voided: [] } },
  ])("$case", ({ before, after, value, impact }) => {
    expect(secretChangeImpact("API_KEY", before, after, value, SKILLS)).toEqual(impact);
  });

  it("counts only the skills that need this secret as becoming unavailable", () => {
    expect(secretChangeImpact("OTHER_KEY", ["tts", "other"], [], true, SKILLS).disabled).toEqual(["other"]);
  });
});

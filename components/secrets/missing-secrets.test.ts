import { describe, expect, it } from "vitest";
import type { Skill } from "@/lib/types/skill";
import { missingSecrets } from "./missing-secrets";

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

describe("missingSecrets", () => {
  it("lists each secret skills need and lack, by name, with those skills", () => {
    expect(missingSecrets(SKILLS)).toEqual([
      { name: "API_KEY", skills: ["stt"] },
      { name: "HF_TOKEN", skills: ["stt"] },
      { name: "OTHER_KEY", skills: ["other"] },
    ]);
  });

  it("is empty when every needed secret is given", () => {
    expect(missingSecrets([skill("tts", ["API_KEY"], ["API_KEY"]), skill("plain")])).toEqual([]);
  });
});

import { describe, expect, it } from "vitest";
import type { SkillClass } from "@/lib/types/skill";
import { decide, decideCall, type Decision, type PermissionMode, type PersonaPolicy } from "./decide";

type Outcome = Decision["outcome"];

/** DESIGN.md "Policy": every cell of the table, class by permission mode. */
const table: Array<[SkillClass, PermissionMode, Outcome]> = [
  ["safe", "read-only", "run"],
  ["safe", "mutating-with-confirm", "run"],
  ["safe", "dual-sign-required", "run"],
  ["mutating", "read-only", "deny"],
  ["mutating", "mutating-with-confirm", "confirm"],
  ["mutating", "dual-sign-required", "confirm"],
  ["dangerous", "read-only", "deny"],
  ["dangerous", "mutating-with-confirm", "deny"],
  ["dangerous", "dual-sign-required", "dual_sign"],
];

/** The reason each outcome of the table gives, after the `persona <name> (<mode>): ` prefix. */
const reasons: Record<string, string> = {
  "safe/read-only": "safe skills run under every permission mode",
  "safe/mutating-with-confirm": "safe skills run under every permission mode",
  "safe/dual-sign-required": "safe skills run under every permission mode",
  "mutating/read-only": "a read-only persona may not run mutating skills",
  "mutating/mutating-with-confirm": "a mutating skill runs after one person confirms it",
  "mutating/dual-sign-required": "a mutating skill runs after one person confirms it",
  "dangerous/read-only": "a read-only persona may not run dangerous skills",
  "dangerous/mutating-with-confirm": "a mutating-with-confirm persona may not run dangerous skills",
  "dangerous/dual-sign-required": "a dangerous skill runs after two distinct approvers sign",
};

function persona(mode: PermissionMode, allow: string[] = ["*"], deny: string[] = [], name = "agent"): PersonaPolicy {
  return { name, permission_mode: mode, skills: { allow, deny } };
}

function skill(name: string, skillClass: SkillClass = "safe", category = "ops") {
  return { name, class: skillClass, category };
}

describe("decide (DESIGN.md policy table)", () => {
  it.each(table)("%s skill under %s persona -> %s", (skillClass, mode, outcome) => {
    expect(decide(mode, skillClass)).toEqual({ outcome, reason: reasons[`${skillClass}/${mode}`] });
  });
});

describe("decideCall: the nine cells through a persona that allows everything", () => {
  it.each(table)("%s skill under %s persona -> %s", (skillClass, mode, outcome) => {
    const decision = decideCall(persona(mode, ["*"], [], "ops-oncall"), skill("disk_cleaner", skillClass));
    expect(decision).toEqual({ outcome, reason: `persona ops-oncall (${mode}): ${reasons[`${skillClass}/${mode}`]}` });
  });

  it("is pure: the same inputs give the same decision and the inputs are not changed", () => {
    const who = persona("dual-sign-required", ["disk_*"], ["disk_wipe"]);
    const what = skill("disk_usage", "dangerous");
    const copy = structuredClone({ who, what });
    expect(decideCall(who, what)).toEqual(decideCall(who, what));
    expect({ who, what }).toEqual(copy);
  });
});

describe("decideCall: allow and deny lists come before the table", () => {
  const cases: Array<{ title: string; allow: string[]; deny: string[]; skill: ReturnType<typeof skill>; outcome: Outcome; reason: string }> = [
    {
      title: "`*` allows every skill",
      allow: ["*"],
      deny: [],
      skill: skill("anything_at_all", "safe", "misc"),
      outcome: "run",
      reason: "persona agent (mutating-with-confirm): safe skills run under every permission mode",
    },
    {
      title: "an empty allow list allows nothing",
      allow: [],
      deny: [],
      skill: skill("disk_usage"),
      outcome: "deny",
      reason: "persona agent allows no skills (empty skills.allow)",
    },
    {
      title: "`disk_*` allows disk_usage",
      allow: ["disk_*"],
      deny: [],
      skill: skill("disk_usage", "mutating"),
      outcome: "confirm",
      reason: "persona agent (mutating-with-confirm): a mutating skill runs after one person confirms it",
    },
    {
      title: "`disk_*` does not allow mydisk_usage",
      allow: ["disk_*"],
      deny: [],
      skill: skill("mydisk_usage"),
      outcome: "deny",
      reason: "mydisk_usage is not in persona agent's skills.allow",
    },
    {
      title: "`category:ops` allows a skill of category ops",
      allow: ["category:ops"],
      deny: [],
      skill: skill("restart_service", "safe", "ops"),
      outcome: "run",
      reason: "persona agent (mutating-with-confirm): safe skills run under every permission mode",
    },
    {
      title: "`category:ops` does not allow a skill of category opsx",
      allow: ["category:ops"],
      deny: [],
      skill: skill("restart_service", "safe", "opsx"),
      outcome: "deny",
      reason: "restart_service is not in persona agent's skills.allow",
    },
    {
      title: "`category:o*` allows categories starting with o",
      allow: ["category:o*"],
      deny: [],
      skill: skill("restart_service", "safe", "observability"),
      outcome: "run",
      reason: "persona agent (mutating-with-confirm): safe skills run under every permission mode",
    },
    {
      title: "a category pattern never matches the skill's name",
      allow: ["category:disk_usage"],
      deny: [],
      skill: skill("disk_usage", "safe", "system"),
      outcome: "deny",
      reason: "disk_usage is not in persona agent's skills.allow",
    },
    {
      title: "a name pattern never matches the skill's category",
      allow: ["ops"],
      deny: [],
      skill: skill("restart_service", "safe", "ops"),
      outcome: "deny",
      reason: "restart_service is not in persona agent's skills.allow",
    },
    {
      title: "no entry matches",
      allow: ["log_*", "category:logs", "uptime"],
      deny: [],
      skill: skill("disk_usage", "safe", "system"),
      outcome: "deny",
      reason: "disk_usage is not in persona agent's skills.allow",
    },
    {
      title: "deny wins over an exact allow",
      allow: ["kill_process"],
      deny: ["kill_process"],
      skill: skill("kill_process", "safe"),
      outcome: "deny",
      reason: 'persona agent denies kill_process (skills.deny: "kill_process")',
    },
    {
      title: "deny by category wins over allow `*`",
      allow: ["*"],
      deny: ["category:danger*"],
      skill: skill("wipe", "safe", "dangerzone"),
      outcome: "deny",
      reason: 'persona agent denies wipe (skills.deny: "category:danger*")',
    },
    {
      title: "deny `*` denies everything even with allow entries",
      allow: ["disk_usage"],
      deny: ["*"],
      skill: skill("disk_usage"),
      outcome: "deny",
      reason: 'persona agent denies disk_usage (skills.deny: "*")',
    },
    {
      title: "a deny that does not match leaves the allow in force",
      allow: ["category:ops"],
      deny: ["kill_process"],
      skill: skill("disk_usage", "safe", "ops"),
      outcome: "run",
      reason: "persona agent (mutating-with-confirm): safe skills run under every permission mode",
    },
    {
      title: "matching is case-sensitive",
      allow: ["Disk_*"],
      deny: [],
      skill: skill("disk_usage"),
      outcome: "deny",
      reason: "disk_usage is not in persona agent's skills.allow",
    },
    {
      title: "an allowed dangerous skill is still denied by the table for a mutating-with-confirm persona",
      allow: ["*"],
      deny: [],
      skill: skill("disk_cleaner", "dangerous"),
      outcome: "deny",
      reason: "persona agent (mutating-with-confirm): a mutating-with-confirm persona may not run dangerous skills",
    },
  ];

  it.each(cases)("$title", ({ allow, deny, skill: target, outcome, reason }) => {
    expect(decideCall(persona("mutating-with-confirm", allow, deny), target)).toEqual({ outcome, reason });
  });

  it("the default persona (read-only, allow *) runs safe skills and denies the rest", () => {
    const fallback = persona("read-only", ["*"], [], "default");
    expect(decideCall(fallback, skill("disk_usage", "safe")).outcome).toBe("run");
    expect(decideCall(fallback, skill("log_rotate", "mutating"))).toEqual({ outcome: "deny", reason: "persona default (read-only): a read-only persona may not run mutating skills" });
    expect(decideCall(fallback, skill("disk_cleaner", "dangerous")).outcome).toBe("deny");
  });

  it("a persona's categories filter native skills only (seed 004 task 5.3)", () => {
    const devops = { ...persona("dual-sign-required", ["*"], []), categories: ["devops", "system"] };
    expect(decideCall(devops, { name: "deploy-service", category: "devops", kind: "native", class: "safe" }).outcome).toBe("run");
    expect(decideCall(devops, { name: "log-analyzer", category: "analysis", kind: "native", class: "safe" })).toEqual({
      outcome: "deny",
      reason: "persona agent loads native skills only from categories devops, system; log-analyzer is in analysis",
    });
    expect(decideCall(devops, { name: "log_scan", category: "analysis", kind: "subprocess", class: "safe" }).outcome).toBe("run");
    expect(decideCall({ ...devops, categories: [] }, { name: "x", category: "devops", kind: "native", class: "safe" }).reason).toBe("persona agent loads native skills only from no category; x is in devops");
  });
});

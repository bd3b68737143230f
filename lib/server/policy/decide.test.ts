import { describe, expect, it } from "vitest";
import { decide, type PermissionMode } from "./decide";
import type { SkillClass } from "@/lib/types/skill";

const table: Array<[SkillClass, PermissionMode, string]> = [
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

describe("decide (DESIGN.md policy table)", () => {
  it.each(table)("%s skill under %s persona -> %s", (skillClass, mode, outcome) => {
    expect(decide(mode, skillClass).outcome).toBe(outcome);
  });
});

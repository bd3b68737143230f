import { describe, expect, it } from "vitest";
import type { PermissionMode } from "@/lib/types/persona";
import type { SkillClass } from "@/lib/types/skill";
import { previewPolicy, type PreviewOutcome } from "./policy-preview";

describe("previewPolicy", () => {
  // DESIGN.md "Policy": rows are classes, columns permission modes.
  const table: Array<[SkillClass, PermissionMode, PreviewOutcome, string]> = [
    ["safe", "read-only", "run", "run"],
    ["safe", "mutating-with-confirm", "run", "run"],
    ["safe", "dual-sign-required", "run", "run"],
    ["mutating", "read-only", "deny", "deny"],
    ["mutating", "mutating-with-confirm", "confirm", "run after one person confirms"],
    ["mutating", "dual-sign-required", "confirm", "run after one person confirms"],
    ["dangerous", "read-only", "deny", "deny"],
    ["dangerous", "mutating-with-confirm", "deny", "deny"],
    ["dangerous", "dual-sign-required", "dual_sign", "run after two distinct approvers sign"],
  ];

  it.each(table)("%s under %s -> %s", (skillClass, mode, outcome, cell) => {
    expect(previewPolicy(mode, skillClass)).toEqual({ outcome, cell });
  });
});

import type { SkillClass } from "@/lib/types/skill";

/** A persona's permission mode (DESIGN.md "Concepts"). */
export type PermissionMode = "read-only" | "mutating-with-confirm" | "dual-sign-required";

/** What the policy says about one call. */
export type Decision =
  | { outcome: "run"; reason: string }
  | { outcome: "confirm"; reason: string }
  | { outcome: "dual_sign"; reason: string }
  | { outcome: "deny"; reason: string };

/**
 * The pure decision of DESIGN.md's policy table for a persona of `mode` calling a skill of `skillClass`:
 * safe runs everywhere; mutating is denied to read-only and needs one person's confirmation otherwise;
 * dangerous runs only under dual-sign-required, after two approvers sign. Allow/deny lists are applied
 * before this by the caller (persona issue).
 */
export function decide(mode: PermissionMode, skillClass: SkillClass): Decision {
  if (skillClass === "safe") return { outcome: "run", reason: "safe skills run under every permission mode" };
  if (skillClass === "mutating") {
    return mode === "read-only"
      ? { outcome: "deny", reason: "a read-only persona may not run mutating skills" }
      : { outcome: "confirm", reason: "a mutating skill runs after one person confirms it" };
  }
  return mode === "dual-sign-required"
    ? { outcome: "dual_sign", reason: "a dangerous skill runs after two distinct approvers sign" }
    : { outcome: "deny", reason: `a ${mode} persona may not run dangerous skills` };
}

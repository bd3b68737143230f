import type { PermissionMode } from "@/lib/types/persona";
import type { SkillClass } from "@/lib/types/skill";

/** What the policy table says about one call. */
export type Decision =
  | { outcome: "run"; reason: string }
  | { outcome: "confirm"; reason: string }
  | { outcome: "dual_sign"; reason: string }
  | { outcome: "deny"; reason: string };

/**
 * DESIGN.md's policy table for a persona of `mode` calling a skill of `skillClass`: safe runs
 * everywhere; mutating is denied to read-only and needs one person's confirmation otherwise;
 * dangerous runs only under dual-sign-required, after two approvers sign. The one copy of the table:
 * the server decides with it (lib/server/policy/decide.ts, after the persona's lists) and the run
 * panel previews with it (lib/client/policy-preview.ts). Universal and pure.
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

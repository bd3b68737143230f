import type { SkillClass } from "@/lib/types/skill";
import { AppError } from "../errors";
import { decide, type PermissionMode } from "./decide";

/**
 * Until personas and approvals exist (issue 4), every caller acts in this mode: the policy table then
 * asks confirmation for mutating skills and two signatures for dangerous ones, which nobody can give
 * yet, so only safe skills run.
 */
export const PRE_IDENTITY_MODE: PermissionMode = "dual-sign-required";

/**
 * The policy step every entry point runs before the executor. Returns when the call may run now; throws
 * AppError `approval_required` (403) when it needs a confirmation or signatures, `forbidden` (403) when
 * the policy denies it. Never starts anything.
 */
export function authorizeCall(skill: { name: string; class: SkillClass }, mode: PermissionMode = PRE_IDENTITY_MODE): void {
  const decision = decide(mode, skill.class);
  if (decision.outcome === "run") return;
  if (decision.outcome === "deny") throw new AppError("forbidden", `${skill.name}: ${decision.reason}`);
  throw new AppError(
    "approval_required",
    `${skill.name} is a ${skill.class} skill: ${decision.reason}, and this console does not take confirmations or signatures yet, so it cannot run`,
    { class: skill.class, decision: decision.outcome },
  );
}

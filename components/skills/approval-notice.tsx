import { Alert } from "@/components/ui/alert";
import type { SkillClass } from "@/lib/types/skill";

const RULE: Record<Exclude<SkillClass, "safe">, string> = {
  mutating: "It creates or updates state, so a run needs one person to confirm it.",
  dangerous: "Its effects are irreversible, so a run needs two distinct approvers to sign, neither of them the requester.",
};

/**
 * Explains why Run is disabled for a mutating or dangerous skill: the server answers
 * `403 approval_required` until approvals ship (a later release).
 */
export function ApprovalNotice({ skillClass }: { skillClass: Exclude<SkillClass, "safe"> }) {
  return (
    <Alert tone="warning" title={`Approval required — this skill is ${skillClass}`} data-testid="approval-notice">
      {RULE[skillClass]} Approvals are not available in this release yet, so the console refuses to run it
      (<code className="font-mono text-[12px]">403 approval_required</code>) and Run is disabled. You can still fill in the form
      and copy its JSON.
    </Alert>
  );
}

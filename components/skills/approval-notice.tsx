import { Alert } from "@/components/ui/alert";
import type { SkillClass } from "@/lib/types/skill";

const RULE: Record<Exclude<SkillClass, "safe">, string> = {
  mutating: "It creates or updates state, so a run needs one person to confirm it.",
  dangerous: "Its effects are irreversible, so a run needs two distinct approvers to sign, neither of them the requester.",
};

/**
 * Explains why Run is disabled for a mutating (amber) or dangerous (red) skill: the server answers
 * `403 approval_required` until approvals ship (a later release). Points at the "Copy args as JSON"
 * button of the run panel. A note, not an alert: it is read in order, not announced.
 */
export function ApprovalNotice({ skillClass }: { skillClass: Exclude<SkillClass, "safe"> }) {
  return (
    <Alert
      tone={skillClass === "dangerous" ? "danger" : "warning"}
      role="note"
      title={`Approval required — this skill is ${skillClass}`}
      data-testid="approval-notice"
      data-class={skillClass}
    >
      {RULE[skillClass]} Approvals are not available in this release yet, so the console refuses to run it
      (<code className="font-mono text-[12px]">403 approval_required</code>) and Run is disabled. You can still fill in the form
      and take the args with <strong className="font-medium">Copy args as JSON</strong>.
    </Alert>
  );
}

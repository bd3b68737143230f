import { Alert } from "@/components/ui/alert";
import type { PolicyPreview } from "@/lib/client/policy-preview";
import type { Persona } from "@/lib/types/persona";
import type { SkillClass } from "@/lib/types/skill";

const CLASS_RULE: Record<Exclude<SkillClass, "safe">, string> = {
  mutating: "It creates or updates state, so it runs only after one person confirms it, and never under a read-only persona.",
  dangerous: "It may do what cannot be undone (delete, restart, run arbitrary commands), so it runs only under a dual-sign-required persona, after two approvers other than you sign.",
};

const WHAT_HAPPENS: Record<PolicyPreview["outcome"], string> = {
  run: "Run starts it at once.",
  confirm: "Run asks you to confirm the exact args first; confirming runs it.",
  dual_sign: "Run files a request; it runs after two other approvers sign it on the Approvals page.",
  deny: "The policy refuses it under this persona; pick another persona to run it, or have an admin create one on the Personas page (a fresh console has only the read-only default).",
};

/** The notice's heading: what stands between Run and the skill running, under the chosen persona. */
function noticeTitle(skillClass: Exclude<SkillClass, "safe">, preview: PolicyPreview | null): string {
  if (preview?.outcome === "deny") return `Refused under this persona — this skill is ${skillClass}`;
  if (preview?.outcome === "confirm") return `Confirmation required — this skill is ${skillClass}`;
  return `Approval required — this skill is ${skillClass}`;
}

/**
 * The notice's colour: red where Run will be refused, amber where it runs after a confirmation or two
 * signatures (a new operator read a red × as a refusal); before the persona is known, by class.
 */
function noticeTone(skillClass: Exclude<SkillClass, "safe">, preview: PolicyPreview | null): "danger" | "warning" {
  if (preview) return preview.outcome === "deny" ? "danger" : "warning";
  return skillClass === "dangerous" ? "danger" : "warning";
}

/**
 * What the policy will do before Run is pressed, for a mutating or dangerous skill: the class's rule,
 * then DESIGN.md's table cell for the chosen persona's permission mode (`preview`, from previewPolicy)
 * and what Run will do, red when it will be refused and amber when it needs people first. A preview
 * only — the persona's allow/deny lists are checked by the server, whose answer rules. A note, not an
 * alert: read in order, not announced.
 */
export function PolicyNotice({ skillClass, persona, preview }: { skillClass: Exclude<SkillClass, "safe">; persona: Persona | undefined; preview: PolicyPreview | null }) {
  return (
    <Alert
      tone={noticeTone(skillClass, preview)}
      role="note"
      title={noticeTitle(skillClass, preview)}
      data-testid="approval-notice"
      data-class={skillClass}
      data-outcome={preview?.outcome}
    >
      <p>{CLASS_RULE[skillClass]}</p>
      {persona && preview ? (
        <p className="mt-1" data-testid="policy-preview">
          Persona <strong className="font-medium">{persona.name}</strong> ({persona.permission_mode}) × {skillClass}:{" "}
          <strong className="font-medium">{preview.cell}</strong>. {WHAT_HAPPENS[preview.outcome]}
        </p>
      ) : null}
    </Alert>
  );
}

import type { ReactNode } from "react";
import { cx } from "@/components/ui/class-names";
import type { SecretImpact } from "./secret-impact";

/** Names listed before "and N more": a secret given to a thousand skills keeps the note short. */
const LISTED = 6;

function Names({ names }: { names: string[] }) {
  const shown = names.slice(0, LISTED);
  const rest = names.length - shown.length;
  return (
    <>
      {shown.map((name, index) => (
        <span key={name}>
          {index > 0 ? (index === shown.length - 1 && rest === 0 ? " and " : ", ") : null}
          <code className="font-mono text-[12px]">{name}</code>
        </span>
      ))}
      {rest > 0 ? ` and ${rest} more` : null}
    </>
  );
}

/**
 * What a secret change does, in sentences (DESIGN.md "Skill secrets"): which skills stop receiving it,
 * which of them need it and become unavailable, and whose pending approvals are voided (their approvers
 * were shown a call that would run with other credentials). Nothing when the change touches no skill.
 */
export function SecretImpactNote({ impact, name, className }: { impact: SecretImpact; name: string; className?: string }) {
  const lines: { key: string; text: ReactNode; strong?: boolean }[] = [];
  if (impact.losing.length > 0) lines.push({ key: "losing", text: <>Stop receiving it: <Names names={impact.losing} />.</> });
  if (impact.gaining.length > 0) lines.push({ key: "gaining", text: <>Start receiving it: <Names names={impact.gaining} />.</> });
  if (impact.disabled.length > 0) {
    lines.push({ key: "disabled", strong: true, text: <>Become unavailable (they need {name}): <Names names={impact.disabled} />.</> });
  }
  if (impact.voided.length > 0) {
    lines.push({ key: "voided", strong: true, text: <>Any pending approvals of <Names names={impact.voided} /> are voided: their approvers were shown a call that would run with other credentials.</> });
  }
  if (lines.length === 0) return null;
  return (
    <ul className={cx("space-y-1 text-[13px] text-zinc-700", className)} data-testid="secret-impact">
      {lines.map((line) => (
        <li key={line.key} data-impact={line.key} className={line.strong ? "text-amber-900" : undefined}>
          {line.text}
        </li>
      ))}
    </ul>
  );
}

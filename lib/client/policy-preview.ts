import { decide } from "@/lib/policy/policy-table";
import type { PermissionMode } from "@/lib/types/persona";
import type { SkillClass } from "@/lib/types/skill";

/** What the policy table says will happen to a call (the server's decision outcomes). */
export type PreviewOutcome = "run" | "confirm" | "dual_sign" | "deny";

/** The run panel's heads-up for one persona and one skill class: the outcome and the table cell as text. */
export interface PolicyPreview {
  outcome: PreviewOutcome;
  /** DESIGN.md's table cell, e.g. "run after one person confirms". */
  cell: string;
}

const CELLS: Record<PreviewOutcome, string> = {
  run: "run",
  confirm: "run after one person confirms",
  dual_sign: "run after two distinct approvers sign",
  deny: "deny",
};

/**
 * The cell of DESIGN.md's policy table ("Policy") for a persona of `mode` calling a skill of
 * `skillClass`, for the run panel to show before Run: safe runs everywhere; mutating is denied to
 * read-only and needs one confirmation otherwise; dangerous runs only under dual-sign-required after two
 * signatures — the same table the server decides with (lib/policy/policy-table.ts). A preview only: the
 * persona's allow/deny lists are not applied here and the server's answer to the call is authoritative.
 */
export function previewPolicy(mode: PermissionMode, skillClass: SkillClass): PolicyPreview {
  const { outcome } = decide(mode, skillClass);
  return { outcome, cell: CELLS[outcome] };
}

/**
 * Binding a dual-sign call to its skill's secrets (DESIGN.md "Skill secrets" and "Dual-sign rules":
 * what the approvers signed for is what runs). The approval keeps the fingerprints of the secrets given
 * to the skill when the call was requested; a change while it is pending voids it (void-approval.ts),
 * and one between the second signature and the claim is caught here, against the very rows whose
 * values the worker is handed, so the call never runs with a value nobody approved.
 */

/**
 * Why `current` (name → fingerprint of the secrets given to the skill now) is not what the approval
 * recorded (`approved`, its `secrets` column: JSON of name → fingerprint), or null when they are the
 * same. An approval stored before approvals recorded secrets (null) is not checked; an unreadable
 * record counts as changed (deny when in doubt). Pure.
 */
export function approvalSecretsChange(approved: string | null, current: Record<string, string>): string | null {
  if (approved === null) return null;
  let recorded: Record<string, string>;
  try {
    recorded = JSON.parse(approved) as Record<string, string>;
    if (!recorded || typeof recorded !== "object" || Array.isArray(recorded)) throw new Error("not an object");
  } catch {
    return "the approval's record of the skill's secrets is unreadable: the call is not run with secrets nobody can vouch for";
  }
  const changed: string[] = [];
  for (const name of [...new Set([...Object.keys(recorded), ...Object.keys(current)])].sort()) {
    if (!Object.prototype.hasOwnProperty.call(current, name)) changed.push(`${name} (no longer given to the skill)`);
    else if (!Object.prototype.hasOwnProperty.call(recorded, name)) changed.push(`${name} (given to the skill since)`);
    else if (recorded[name] !== current[name]) changed.push(`${name} (another value)`);
  }
  if (changed.length === 0) return null;
  return `the skill's secrets changed after the call was requested: ${changed.join(", ")}; what the approvers signed for is no longer what would run`;
}

/**
 * The skills whose pending approvals a secret change voids (DESIGN.md "Skill secrets": a change voids
 * pending approvals of the skills it feeds; the approvers were shown a call that would now run with
 * other credentials). When the value changes — a new secret, a new value, a deletion — every skill
 * named `before` or `after`; otherwise only the skills that gain or lose the secret. `before` and
 * `after` are the secret's skill names (empty before a creation and after a deletion). Returns each
 * name once: those of `before` first, in their order, then the new ones of `after`. The one copy of
 * the rule: the server voids with it (lib/server/secrets/secret-store.ts) and the Secrets page says
 * with it whose approvals a change would void. Universal and pure.
 */
export function skillsVoidedBySecretChange(before: readonly string[], after: readonly string[], valueChanged: boolean): string[] {
  if (valueChanged) return [...new Set([...before, ...after])];
  return [...new Set([...before.filter((skill) => !after.includes(skill)), ...after.filter((skill) => !before.includes(skill))])];
}

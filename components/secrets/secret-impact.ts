import { skillsVoidedBySecretChange } from "@/lib/policy/secret-change";
import type { Skill } from "@/lib/types/skill";

/** What a secret change does to skills, to say before it is made (names in the order of the secret's skills). */
export interface SecretImpact {
  /** Skills that stop receiving the secret. */
  losing: string[];
  /** Skills that start receiving it. */
  gaining: string[];
  /** Skills of `losing` that need it (`secretsNeeded`): they become unavailable. */
  disabled: string[];
  /** Skills whose pending approvals are voided (skillsVoidedBySecretChange). */
  voided: string[];
}

/**
 * What giving secret `name` to `after` instead of `before` does (DESIGN.md "Skill secrets"): which
 * skills lose and gain it, which of those losing it need it and so become unavailable (looked up in
 * `skills`, the registered ones; an unknown name needs nothing), and whose pending approvals are
 * voided — all of them when `valueChanged`. A creation is `before` = [], a deletion `after` = [], both
 * with a value. Pure.
 */
export function secretChangeImpact(name: string, before: readonly string[], after: readonly string[], valueChanged: boolean, skills: readonly Skill[]): SecretImpact {
  const losing = before.filter((skill) => !after.includes(skill));
  const gaining = after.filter((skill) => !before.includes(skill));
  const needing = new Set(skills.filter((skill) => skill.secretsNeeded.includes(name)).map((skill) => skill.name));
  return { losing, gaining, disabled: losing.filter((skill) => needing.has(skill)), voided: skillsVoidedBySecretChange(before, after, valueChanged) };
}

import type { SecretGrants } from "../secrets/secret-store";
import type { RegisteredSkill } from "./registered-skill";

/**
 * The reason a skill that needs secrets it is not given is unavailable, e.g. "needs secret
 * OPENAI_API_KEY: no secret of that name is given to this skill (Secrets page)". Pure.
 */
export function missingSecretsReason(missing: readonly string[]): string {
  const names = missing.join(", ");
  return missing.length === 1
    ? `needs secret ${names}: no secret of that name is given to this skill (Secrets page)`
    : `needs secrets ${names}: no secrets of those names are given to this skill (Secrets page)`;
}

/**
 * A skill as the registry offers it once the secrets are known (DESIGN.md "Skill secrets"): its
 * `secretsGiven` (the secrets that name it, whatever it declares) and, for a skill whose
 * `secretsNeeded` (a native skill's `requires.env` / `primaryEnv`) are not all given, `available` false
 * with missingSecretsReason (after the loader's own reason when it had one). A variable of the same
 * name in the console's environment never counts. Returns the skill itself when nothing changes. Pure.
 */
export function withSecretGrants(skill: RegisteredSkill, grants: SecretGrants): RegisteredSkill {
  const given = grants.get(skill.name) ?? [];
  const missing = skill.secretsNeeded.filter((name) => !given.includes(name));
  if (given.length === 0 && missing.length === 0) return skill;
  const reason = missing.length === 0 ? null : missingSecretsReason(missing);
  return {
    ...skill,
    secretsGiven: [...given],
    ...(reason === null ? {} : { available: false, unavailableReason: skill.unavailableReason ? `${skill.unavailableReason}; ${reason}` : reason }),
  };
}

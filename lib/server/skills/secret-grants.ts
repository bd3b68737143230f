import type { SecretGrants } from "../secrets/secret-store";
import { secretNameRefusal } from "../secrets/secret-names";
import { folderOfSkill, type RegisteredSkill } from "./registered-skill";

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
 * `secretsGiven` (the secrets given to it in the folder it lives in, whatever it declares) and, for a
 * skill whose `secretsNeeded` (a native skill's `requires.env` / `primaryEnv`) are not all given,
 * `available` false with the reason (after the loader's own reason when it had one): missingSecretsReason;
 * for a name no secret may have (secretNameRefusal: IFS, PATH, LD_…), that refusal; or, for a secret given to a skill of this name in another folder (one that took the name from another
 * root), a reason naming both folders. A variable of the same name in the console's environment never
 * counts. Returns the skill itself when nothing changes. Pure.
 */
export function withSecretGrants(skill: RegisteredSkill, grants: SecretGrants): RegisteredSkill {
  const named = grants.get(skill.name) ?? [];
  // Most skills need no secret and are given none: nothing to work out (10,000 of them on every publish).
  if (named.length === 0 && skill.secretsNeeded.length === 0) return skill;
  const folder = folderOfSkill(skill);
  const given = named.filter((grant) => grant.folder === folder).map((grant) => grant.secret);
  const elsewhere = named.filter((grant) => grant.folder !== folder);
  const missing = skill.secretsNeeded.filter((name) => !given.includes(name));
  if (given.length === 0 && missing.length === 0) return skill;
  const reasons = missing.map((name) => {
    const refusal = secretNameRefusal(name);
    if (refusal !== null) return `needs ${name}, which no secret can give it: ${refusal}`;
    const other = elsewhere.find((grant) => grant.secret === name);
    return other ? secretElsewhereReason(name, skill.name, other.folder, folder) : null;
  });
  const plainMissing = missing.filter((_, index) => reasons[index] === null);
  const reason = [...(plainMissing.length > 0 ? [missingSecretsReason(plainMissing)] : []), ...reasons.filter((text): text is string => text !== null)].join("; ") || null;
  return {
    ...skill,
    secretsGiven: [...given],
    ...(reason === null ? {} : { available: false, unavailableReason: skill.unavailableReason ? `${skill.unavailableReason}; ${reason}` : reason }),
  };
}

/**
 * Why a skill does not get a secret given to a skill of its name in another folder, e.g. "needs secret
 * X: it was given to the skill deploy in /srv/a/deploy, not this one in /srv/b/deploy (Secrets page:
 * name the skill again to give it here)". Pure.
 */
export function secretElsewhereReason(secret: string, skill: string, givenIn: string | null, livesIn: string): string {
  const where = givenIn === null ? "in no recorded folder" : `in ${givenIn}`;
  return `needs secret ${secret}: it was given to the skill ${skill} ${where}, not this one in ${livesIn} (Secrets page: name the skill again to give it here)`;
}

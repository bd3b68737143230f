import type { Skill } from "@/lib/types/skill";

/** A secret some skills need and are not given: its name and those skills, by name. */
export interface MissingSecret {
  name: string;
  skills: string[];
}

/**
 * The secrets registered skills need (`secretsNeeded`: a native skill's `requires.env`/`primaryEnv`)
 * and are not given (`secretsGiven`), each with the skills that lack it — the reason they are
 * unavailable. Sorted by secret name, skills in the order of `skills`. Pure.
 */
export function missingSecrets(skills: readonly Skill[]): MissingSecret[] {
  const missing = new Map<string, string[]>();
  for (const skill of skills) {
    for (const name of skill.secretsNeeded) {
      if (skill.secretsGiven.includes(name)) continue;
      const lacking = missing.get(name) ?? [];
      lacking.push(skill.name);
      missing.set(name, lacking);
    }
  }
  return [...missing].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, lacking]) => ({ name, skills: lacking }));
}

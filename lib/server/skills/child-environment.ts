import { consoleEnvValue, SCRIPT_SYSTEM_PATH } from "../env";
import type { RegisteredSkill } from "./registered-skill";

/**
 * The exact environment of a skill's process on the worker that runs it (seed 000: only the
 * `env_allow` names, an empty list meaning an empty environment, not even PATH; DESIGN.md "Native
 * skills": a script gets a fixed system PATH plus its `env_allow` names): the values come from the
 * worker's own environment, never the console's secrets (consoleEnvValue refuses them). In a sandbox
 * `HOME`, when allowed, names the sandbox's private home (`home`), not the host's. Then the skill
 * secrets given to it (`secrets`, name → value; DESIGN.md "Skill secrets"), over any variable of the
 * same name; a secret the skill needs (`secretsNeeded`) is never taken from the worker's environment,
 * even when `env_allow` lists it. Pure apart from reading the environment.
 */
export function childEnvironment(
  skill: Pick<RegisteredSkill, "kind" | "envAllow" | "secretsNeeded">,
  options: { home: string | null; secrets?: Readonly<Record<string, string>> },
): Record<string, string> {
  const env: Record<string, string> = skill.kind === "native" ? { PATH: SCRIPT_SYSTEM_PATH } : {};
  for (const name of skill.envAllow) {
    if (skill.secretsNeeded.includes(name)) continue;
    const value = name === "HOME" && options.home !== null ? options.home : consoleEnvValue(name);
    if (value !== undefined) env[name] = value;
  }
  for (const [name, value] of Object.entries(options.secrets ?? {})) env[name] = value;
  return env;
}

import { consoleEnvValue, SCRIPT_SYSTEM_PATH } from "../env";
import type { RegisteredSkill } from "./registered-skill";

/**
 * Variables /bin/sh (dash) sets when it starts and exports when it found them in its environment, so
 * they cannot pass unchanged through the shell that joins a call's cgroups (call-cgroup.ts JOIN_SCRIPT):
 * a skill given PPID would see the join shell's parent pid instead. Never passed to a skill, and
 * refused as secret names.
 */
export const SHELL_RESET_NAMES: readonly string[] = ["IFS", "OPTIND", "PPID"];

/**
 * The exact environment of a skill's process on the worker that runs it (seed 000: only the
 * `env_allow` names, an empty list meaning an empty environment, not even PATH; DESIGN.md "Native
 * skills": a script gets a fixed system PATH plus its `env_allow` names): the values come from the
 * worker's own environment, never the console's secrets (consoleEnvValue refuses them). In a sandbox
 * `HOME`, when allowed, names the sandbox's private home (`home`), not the host's. Then the skill
 * secrets given to it (`secrets`, name → value; DESIGN.md "Skill secrets"), over any variable of the
 * same name; a secret the skill needs (`secretsNeeded`) is never taken from the worker's environment,
 * even when `env_allow` lists it. SHELL_RESET_NAMES are left out whatever lists them. Pure apart from
 * reading the environment.
 */
export function childEnvironment(
  skill: Pick<RegisteredSkill, "kind" | "envAllow" | "secretsNeeded">,
  options: { home: string | null; secrets?: Readonly<Record<string, string>> },
): Record<string, string> {
  const env: Record<string, string> = skill.kind === "native" ? { PATH: SCRIPT_SYSTEM_PATH } : {};
  for (const name of skill.envAllow) {
    if (skill.secretsNeeded.includes(name) || SHELL_RESET_NAMES.includes(name)) continue;
    const value = name === "HOME" && options.home !== null ? options.home : consoleEnvValue(name);
    if (value !== undefined) env[name] = value;
  }
  for (const [name, value] of Object.entries(options.secrets ?? {})) if (!SHELL_RESET_NAMES.includes(name)) env[name] = value;
  return env;
}

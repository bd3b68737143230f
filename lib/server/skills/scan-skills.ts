import type { ConsoleConfig } from "@/lib/server/env";
import type { LoaderReport } from "@/lib/types/skill";
import type { RegisteredSkill } from "./registered-skill";
import { loadSubprocessSkills } from "./subprocess-loader";

/**
 * One full scan of every kind of skill (DESIGN.md "Subprocess skills": subprocess skills load first,
 * and a later skill of either kind with a taken name is skipped and reported). Today only subprocess
 * skills exist; the native SKILL.md loader joins here, receiving the names already taken and adding
 * to the same report. Takes the settings (roots, default timeout) and an optional log sink; never
 * throws. Returns the skills and the combined report.
 */
export async function scanSkills(
  settings: Pick<ConsoleConfig, "skillRoots" | "defaultTimeoutSeconds">,
  log?: (line: string) => void,
): Promise<{ skills: RegisteredSkill[]; report: LoaderReport }> {
  return loadSubprocessSkills(settings.skillRoots, { defaultTimeoutSeconds: settings.defaultTimeoutSeconds, log });
}

import type { WorkerSkillReport } from "@/lib/types/worker";
import type { WorkerConfig } from "@/lib/server/env";
import { SCRIPT_SYSTEM_PATH } from "@/lib/server/env";
import { PlanError, readSkillDigest } from "@/lib/server/skills/call-plan";
import type { RegisteredSkill } from "@/lib/server/skills/registered-skill";
import { scanSkills } from "@/lib/server/skills/scan-skills";

/** The skills a worker holds: by name, and as reported to the console with each copy's digest. */
export interface SkillCatalog {
  skills: Map<string, RegisteredSkill>;
  reports: WorkerSkillReport[];
}

/** Skill folders digested at once while scanning. */
const DIGEST_CONCURRENCY = 8;

/**
 * Scans the worker's own roots and skills path with the console's loader (DESIGN.md: each worker has
 * the skill roots of its own host) and digests every skill's folder (readSkillDigest), so the console
 * hands it only calls bound to the same bytes. A skill whose folder cannot be hashed is reported with
 * no digest and unavailable, with the reason; so is one the loader marked unavailable (its sandbox
 * declaration exceeds this worker's SKILL_SANDBOX_ALLOW_PATHS, a binary is missing). Never throws.
 */
export async function scanCatalog(config: WorkerConfig): Promise<SkillCatalog> {
  const { skills } = await scanSkills(
    {
      skillRoots: config.skillRoots,
      skillsPath: config.skillsPath,
      defaultTimeoutSeconds: config.defaultTimeoutSeconds,
      sandboxAllowPaths: config.sandbox.allowPaths,
      sandboxHiddenPaths: config.sandboxHiddenPaths,
      bundledSkillsDir: config.bundledSkillsDir,
    },
    () => undefined,
  );
  const byName = new Map(skills.map((skill) => [skill.name, skill]));
  const reports: WorkerSkillReport[] = new Array(skills.length);
  let next = 0;
  const settings = { scriptInterpreters: config.scriptInterpreters, systemPath: SCRIPT_SYSTEM_PATH, limits: config.skillFolderLimits };
  const digestAll = async (): Promise<void> => {
    for (let index = next++; index < skills.length; index = next++) {
      const skill = skills[index]!;
      try {
        const { digest } = await readSkillDigest(skill, settings);
        reports[index] = { name: skill.name, digest, available: skill.available, reason: skill.unavailableReason };
      } catch (error) {
        const reason = error instanceof PlanError ? error.message : String(error);
        reports[index] = { name: skill.name, digest: null, available: false, reason };
      }
    }
  };
  await Promise.all(Array.from({ length: DIGEST_CONCURRENCY }, digestAll));
  return { skills: byName, reports };
}

import type { WorkerSkillReport } from "@/lib/types/worker";
import type { WorkerConfig } from "@/lib/server/env";
import { SCRIPT_SYSTEM_PATH } from "@/lib/server/env";
import { PlanError, readSkillDigest } from "@/lib/server/skills/call-plan";
import type { RegisteredSkill } from "@/lib/server/skills/registered-skill";
import type { ScanMemo } from "@/lib/server/skills/scan-memo";
import { scanSkills } from "@/lib/server/skills/scan-skills";

/** The skills a worker holds: by name, and as reported to the console with each copy's digest. */
export interface SkillCatalog {
  skills: Map<string, RegisteredSkill>;
  reports: WorkerSkillReport[];
}

/** How a scan may reuse what the worker read before (a targeted rescan after its watcher saw changes). */
export interface CatalogReuse {
  /** The loader's memo (scan-memo.ts), its changes already applied (invalidate) or forgotten. */
  memo: ScanMemo;
  /** The catalog before: a skill the memo served unchanged (the same object) keeps its digest report. */
  previous: SkillCatalog | null;
}

/** Skill folders digested at once while scanning. */
const DIGEST_CONCURRENCY = 8;

/**
 * Scans the worker's own roots and skills path with the console's loader (DESIGN.md: each worker has
 * the skill roots of its own host) and digests every skill's folder (readSkillDigest), so the console
 * hands it only calls bound to the same bytes. A skill whose folder cannot be hashed is reported with
 * no digest and unavailable, with the reason; so is one the loader marked unavailable (its sandbox
 * declaration exceeds this worker's SKILL_SANDBOX_ALLOW_PATHS, a binary is missing). With `reuse`,
 * the scan reads only what the memo does not hold, and a skill that comes back as the very object of
 * `reuse.previous` is not digested again: the memo voided every examination of a folder that changed,
 * and the digest covers that folder. (A stale report would cost only a refused claim: the worker digests
 * the snapshot again just before spawn.) Never throws.
 */
export async function scanCatalog(config: WorkerConfig, reuse?: CatalogReuse): Promise<SkillCatalog> {
  const { skills } = await scanSkills(
    {
      skillRoots: config.skillRoots,
      skillsPath: config.skillsPath,
      packsPath: config.packsPath,
      defaultTimeoutSeconds: config.defaultTimeoutSeconds,
      sandboxAllowPaths: config.sandbox.allowPaths,
      sandboxHiddenPaths: config.sandboxHiddenPaths,
      bundledSkillsDir: config.bundledSkillsDir,
    },
    () => undefined,
    reuse?.memo,
  );
  const previous = new Map<RegisteredSkill, WorkerSkillReport>();
  for (const report of reuse?.previous?.reports ?? []) {
    const skill = reuse?.previous?.skills.get(report.name);
    if (skill) previous.set(skill, report);
  }
  const byName = new Map(skills.map((skill) => [skill.name, skill]));
  const reports: WorkerSkillReport[] = new Array(skills.length);
  let next = 0;
  const settings = { scriptInterpreters: config.scriptInterpreters, systemPath: SCRIPT_SYSTEM_PATH, limits: config.skillFolderLimits };
  const digestAll = async (): Promise<void> => {
    for (let index = next++; index < skills.length; index = next++) {
      const skill = skills[index]!;
      const known = previous.get(skill);
      if (known) {
        reports[index] = known;
        continue;
      }
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

import type { ConsoleConfig } from "@/lib/server/env";
import type { LoaderReport } from "@/lib/types/skill";
import { loadNativeSkills } from "./native/native-loader";
import type { RegisteredSkill } from "./registered-skill";
import { withSandboxAllowance } from "./sandbox-allowance";
import type { ScanMemo } from "./scan-memo";
import { loadSubprocessSkills } from "./subprocess-loader";

/**
 * Joins the subprocess and native loader reports into one (`GET /api/v1/loader`): roots of both (the
 * skills path appears once when both loaders saw it alike), entries and log lines in load order,
 * `count` = both, `durationMs` = both scans. `loadedAt` is the first scan's start. Pure.
 */
export function mergeLoaderReports(first: LoaderReport, second: LoaderReport): LoaderReport {
  const roots = [...first.roots];
  for (const root of second.roots) {
    if (!roots.some((seen) => seen.path === root.path && seen.status === root.status && seen.reason === root.reason)) roots.push(root);
  }
  return {
    loadedAt: first.loadedAt,
    durationMs: first.durationMs + second.durationMs,
    roots,
    registered: [...first.registered, ...second.registered],
    skipped: [...first.skipped, ...second.skipped],
    failed: [...first.failed, ...second.failed],
    log: [...first.log, ...second.log],
    count: first.count + second.count,
  };
}

/**
 * One full scan of every kind of skill (DESIGN.md "Subprocess skills": subprocess skills load first,
 * and a later skill of either kind with a taken name is skipped and reported): the subprocess loader
 * over `skillRoots`, then the native SKILL.md loader over `skillsPath` with the subprocess names as
 * taken. Each skill whose sandbox declaration exceeds the allowance (withSandboxAllowance:
 * `sandboxAllowPaths`, the bundled skills folder when it is unset, `sandboxHiddenPaths`) is kept but
 * unavailable. Takes the settings and an
 * optional log sink, and an optional ScanMemo (an incremental rescan: only the folders and skills
 * its invalidations left unknown are read; what is read is kept there). Never throws (a broken skill
 * never blocks start-up). Returns the skills of both kinds and the combined report.
 */
export async function scanSkills(
  settings: Pick<ConsoleConfig, "skillRoots" | "defaultTimeoutSeconds" | "skillsPath" | "sandboxAllowPaths" | "sandboxHiddenPaths" | "bundledSkillsDir">,
  log?: (line: string) => void,
  memo?: ScanMemo,
): Promise<{ skills: RegisteredSkill[]; report: LoaderReport }> {
  const subprocess = await loadSubprocessSkills(settings.skillRoots, { defaultTimeoutSeconds: settings.defaultTimeoutSeconds, log, memo });
  const native = await loadNativeSkills(settings.skillsPath, {
    defaultTimeoutSeconds: settings.defaultTimeoutSeconds,
    taken: new Set(subprocess.skills.map((skill) => skill.name)),
    log,
    memo,
  });
  const allowance = { paths: settings.sandboxAllowPaths, bundledDir: settings.bundledSkillsDir, hidden: settings.sandboxHiddenPaths };
  const skills = [...subprocess.skills, ...native.skills].map((skill) => withSandboxAllowance(skill, allowance));
  return { skills, report: mergeLoaderReports(subprocess.report, native.report) };
}

import type { ConsoleConfig } from "@/lib/server/env";
import type { LoaderReport } from "@/lib/types/skill";
import { installedPacksRoot } from "../packs/pack-layout";
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
 * The folders the loaders walk (DESIGN.md "Skill packs": installed packs are one more root for both
 * kinds, after the others, so a pack never shadows a skill of theirs): subprocess roots, then native
 * skills paths, in load order; without `packsPath`, no packs root. The console and its workers watch these. Pure.
 */
export function scannedRoots(settings: Pick<ConsoleConfig, "skillRoots" | "skillsPath"> & Partial<Pick<ConsoleConfig, "packsPath">>): { subprocess: string[]; native: string[]; all: string[] } {
  const packs = settings.packsPath === undefined ? [] : [installedPacksRoot(settings.packsPath)];
  const subprocess = [...settings.skillRoots, ...packs];
  const native = [settings.skillsPath, ...packs];
  return { subprocess, native, all: [...new Set([...subprocess, ...native])] };
}

/**
 * One full scan of every kind of skill (DESIGN.md "Subprocess skills": subprocess skills load first,
 * and a later skill of either kind with a taken name is skipped and reported): the subprocess loader
 * over `skillRoots` and the installed packs, then the native SKILL.md loader over `skillsPath` and the
 * installed packs (each pack folder is a category) with the names loaded before as taken. Each skill whose sandbox declaration exceeds the allowance (withSandboxAllowance:
 * `sandboxAllowPaths`, the bundled skills folder when it is unset, `sandboxHiddenPaths`) is kept but
 * unavailable. Takes the settings and an
 * optional log sink, and an optional ScanMemo (an incremental rescan: only the folders and skills
 * its invalidations left unknown are read; what is read is kept there). Never throws (a broken skill
 * never blocks start-up). Returns the skills of both kinds and the combined report.
 */
export async function scanSkills(
  settings: Pick<ConsoleConfig, "skillRoots" | "defaultTimeoutSeconds" | "skillsPath" | "sandboxAllowPaths" | "sandboxHiddenPaths" | "bundledSkillsDir"> & Partial<Pick<ConsoleConfig, "packsPath">>,
  log?: (line: string) => void,
  memo?: ScanMemo,
): Promise<{ skills: RegisteredSkill[]; report: LoaderReport }> {
  const roots = scannedRoots(settings);
  const subprocess = await loadSubprocessSkills(roots.subprocess, { defaultTimeoutSeconds: settings.defaultTimeoutSeconds, log, memo });
  const taken = new Set(subprocess.skills.map((skill) => skill.name));
  let report = subprocess.report;
  const skills: RegisteredSkill[] = [...subprocess.skills];
  for (const nativeRoot of roots.native) {
    const native = await loadNativeSkills(nativeRoot, { defaultTimeoutSeconds: settings.defaultTimeoutSeconds, taken, log, memo });
    for (const skill of native.skills) taken.add(skill.name);
    skills.push(...native.skills);
    report = mergeLoaderReports(report, native.report);
  }
  const allowance = { paths: settings.sandboxAllowPaths, bundledDir: settings.bundledSkillsDir, hidden: settings.sandboxHiddenPaths };
  return { skills: skills.map((skill) => withSandboxAllowance(skill, allowance)), report };
}

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
 * kinds, loaded after every configured root and the skills path, so a pack never shadows a skill of
 * theirs, of either kind): the configured subprocess roots, the skills path, and the installed packs
 * (without `packsPath`, none). The console and its workers watch `all`. Pure.
 */
export function scannedRoots(settings: Pick<ConsoleConfig, "skillRoots" | "skillsPath"> & Partial<Pick<ConsoleConfig, "packsPath">>): { subprocess: string[]; native: string; packs: string | null; all: string[] } {
  const packs = settings.packsPath === undefined ? null : installedPacksRoot(settings.packsPath);
  return { subprocess: [...settings.skillRoots], native: settings.skillsPath, packs, all: [...new Set([...settings.skillRoots, settings.skillsPath, ...(packs ? [packs] : [])])] };
}

/**
 * One full scan of every kind of skill (DESIGN.md "Subprocess skills": subprocess skills load first,
 * and a later skill of either kind with a taken name is skipped and reported): the subprocess loader
 * over `skillRoots`, the native SKILL.md loader over `skillsPath`, then both over the installed packs
 * (each pack folder is a category), each with the names loaded before it as taken — so a pack never
 * shadows a skill of the configured roots or the skills path. Each skill whose sandbox declaration
 * exceeds the allowance (withSandboxAllowance: `sandboxAllowPaths`, the bundled skills folder when it
 * is unset, `sandboxHiddenPaths`) is kept but unavailable. Takes the settings, an optional log sink,
 * and an optional ScanMemo (an incremental rescan: only the folders and skills its invalidations left
 * unknown are read; what is read is kept there). Never throws (a broken skill never blocks start-up).
 * Returns the skills of both kinds and the combined report.
 */
export async function scanSkills(
  settings: Pick<ConsoleConfig, "skillRoots" | "defaultTimeoutSeconds" | "skillsPath" | "sandboxAllowPaths" | "sandboxHiddenPaths" | "bundledSkillsDir"> & Partial<Pick<ConsoleConfig, "packsPath">>,
  log?: (line: string) => void,
  memo?: ScanMemo,
): Promise<{ skills: RegisteredSkill[]; report: LoaderReport }> {
  const roots = scannedRoots(settings);
  const taken = new Set<string>();
  let report: LoaderReport | null = null;
  const skills: RegisteredSkill[] = [];
  const add = (loaded: { skills: RegisteredSkill[]; report: LoaderReport }) => {
    for (const skill of loaded.skills) taken.add(skill.name);
    skills.push(...loaded.skills);
    report = report === null ? loaded.report : mergeLoaderReports(report, loaded.report);
  };
  add(await loadSubprocessSkills(roots.subprocess, { defaultTimeoutSeconds: settings.defaultTimeoutSeconds, log, memo }));
  add(await loadNativeSkills(roots.native, { defaultTimeoutSeconds: settings.defaultTimeoutSeconds, taken, log, memo }));
  if (roots.packs !== null) {
    add(await loadSubprocessSkills([roots.packs], { defaultTimeoutSeconds: settings.defaultTimeoutSeconds, taken, log, memo }));
    add(await loadNativeSkills(roots.packs, { defaultTimeoutSeconds: settings.defaultTimeoutSeconds, taken, log, memo }));
  }
  const allowance = { paths: settings.sandboxAllowPaths, bundledDir: settings.bundledSkillsDir, hidden: settings.sandboxHiddenPaths };
  return { skills: skills.map((skill) => withSandboxAllowance(skill, allowance)), report: report! };
}

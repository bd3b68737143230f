import os from "node:os";
import path from "node:path";
import { declarationOutsideAllowance } from "../executor/sandbox/sandbox-declaration";
import { folderOfSkill, type RegisteredSkill } from "./registered-skill";

/** Where the console and its workers keep what no skill may see. */
export interface HiddenPathSources {
  /** The console's (or worker's) install folder: its code, `.next`, `node_modules`. */
  installDir: string;
  /** The data folder: the database, the auth secret, the worker's snapshots. */
  dataDir: string;
  /** Allow-list roots as configured (relative ones are ignored: the loader skips them too). */
  skillRoots: readonly string[];
  /** The native skills path. */
  skillsPath: string;
  /** The SQLite database file, when there is one: its folder holds the -wal and -shm files too. */
  databaseFile?: string | null;
  /** SKILL_SANDBOX_HIDE_PATHS: what the operator hides besides, and the files the launcher read console secrets from (`*_FILE`). */
  extra?: readonly string[];
}

/**
 * The paths every sandbox masks, whatever a skill declares (DESIGN.md "Workers and the sandbox":
 * nothing of the host's filesystem but what is bound — not the console's folder, its data, other
 * skills, /root, /home, the files console secrets were read from). The skill's own snapshot is bound back inside the mask. Sorted, de-duplicated,
 * absolute. Pure apart from reading the user's home folder.
 */
export function sandboxHiddenPaths(sources: HiddenPathSources): string[] {
  const paths = [sources.installDir, sources.dataDir, sources.skillsPath, ...sources.skillRoots, "/root", "/home", os.homedir(), ...(sources.extra ?? [])];
  if (sources.databaseFile) paths.push(path.dirname(sources.databaseFile));
  return [...new Set(paths.filter((entry) => path.isAbsolute(entry)).map((entry) => path.resolve(entry)))].sort();
}

/** What skills' sandbox declarations may name on this host. */
export interface SandboxAllowance {
  /** SKILL_SANDBOX_ALLOW_PATHS; null when the operator left it unset. */
  paths: readonly string[] | null;
  /** The console's own bundled skills folder (`<install>/skills`). */
  bundledDir: string;
  /** Paths every sandbox masks (sandboxHiddenPaths). */
  hidden: readonly string[];
}


/**
 * The skill as it may be offered under the operator's allowance (DESIGN.md: a declaration cannot widen
 * past SKILL_SANDBOX_ALLOW_PATHS; a manifest asking for more is loaded but unavailable, with the
 * reason). With SKILL_SANDBOX_ALLOW_PATHS set, every declared path must lie within it. Left unset, it
 * allows none — except for the skills bundled in the console's own `skills/` folder, which ship and are
 * reviewed with the console (as that folder is the one default allow-list root) and get what they
 * declare. Either way no declared path may name a hidden path. Returns the skill unchanged, or a copy
 * marked unavailable with declarationOutsideAllowance's reason (a skill already unavailable keeps its
 * first reason). Pure.
 */
export function withSandboxAllowance(skill: RegisteredSkill, allowance: SandboxAllowance): RegisteredSkill {
  // A declaration that names no path is within any allowance (most skills: nothing to work out).
  if (skill.sandbox.read.length === 0 && skill.sandbox.write.length === 0 && skill.sandbox.devices.length === 0) return skill;
  const declared = [...skill.sandbox.read, ...skill.sandbox.write, ...skill.sandbox.devices];
  const reason = declarationOutsideAllowance(skill.sandbox, sandboxAllowedRoots(skill, allowance) ?? declared, allowance.hidden);
  if (reason === null || !skill.available) return skill;
  return { ...skill, available: false, unavailableReason: reason };
}

/**
 * The roots a skill's declared sandbox paths must lie within: SKILL_SANDBOX_ALLOW_PATHS (none when it
 * is unset), or null for a skill bundled in the console's own `skills/` folder while it is unset (its
 * declaration is not capped; see withSandboxAllowance). The console checks declared paths against
 * them as text; the worker checks each declared path's real path against their real paths just before
 * spawn (buildSandboxedCommand `allowedRoots`), so a symlink under an allowed root cannot widen them.
 */
export function sandboxAllowedRoots(skill: RegisteredSkill, allowance: Pick<SandboxAllowance, "paths" | "bundledDir">): readonly string[] | null {
  if (allowance.paths === null && isWithin(allowance.bundledDir, folderOfSkill(skill))) return null;
  return allowance.paths ?? [];
}

function isWithin(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative);
}

import fs from "node:fs/promises";
import path from "node:path";
import type { LoaderRoot } from "@/lib/types/skill";
import { describeFsError, loaderLine, type LoaderLog } from "./loader-log";

/** A root the loader will walk: as configured, and its realpath (the one every check uses). */
export interface UsableRoot {
  given: string;
  real: string;
}

/**
 * True when `candidate` is strictly inside `root` (both absolute and normalised): `/a/b` is under
 * `/a`, while `/a` itself and `/a2/b` are not. Used for every allow-list check (seed 000 "Reglas de
 * allow-list").
 */
export function isUnderRoot(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return relative !== "" && relative !== ".." && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative);
}

/**
 * True when two absolute, normalised paths are the same folder or one lies under the other (isUnderRoot
 * either way): `/a` and `/a/b` overlap, `/a` and `/a2` do not. Pure.
 */
export function pathsOverlap(a: string, b: string): boolean {
  return a === b || isUnderRoot(a, b) || isUnderRoot(b, a);
}

/**
 * Checks one configured allow-list root (seed 000): a relative root is skipped with a log line, a
 * missing one too (a fresh install without the folder starts fine), so is anything that is not a
 * readable directory, or a root whose realpath is among `scanned`. A usable root is canonicalised with
 * realpath. Takes the root as configured, the roots already accepted, and the log; never throws.
 * Returns the root to walk (null when skipped) and its LoaderRoot for the report.
 */
export async function resolveRoot(
  root: string,
  scanned: readonly UsableRoot[],
  log: LoaderLog,
): Promise<{ usable: UsableRoot | null; report: LoaderRoot }> {
  const skip = (rootPath: string, reason: string, line: string) => {
    log.write(line);
    return { usable: null, report: { path: rootPath, status: "skipped" as const, reason } };
  };
  if (!path.isAbsolute(root)) return skip(root, "relative path", loaderLine.relativeRoot(root));
  let real: string;
  try {
    real = await fs.realpath(root);
    if (!(await fs.stat(real)).isDirectory()) return skip(root, "not a directory", loaderLine.unusableRoot(root, "not a directory"));
    await fs.access(real, fs.constants.R_OK | fs.constants.X_OK);
  } catch (error) {
    const reason = describeFsError(error);
    return skip(root, reason, reason === "does not exist" ? loaderLine.missingRoot(root) : loaderLine.unusableRoot(root, reason));
  }
  if (scanned.some((seen) => seen.real === real)) return skip(real, "already scanned", loaderLine.duplicateRoot(real));
  return { usable: { given: path.resolve(root), real }, report: { path: real, status: "scanned", reason: null } };
}

import { accessSync, constants as fsConstants, realpathSync, statSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { emptyArgsSchema, type SkillManifest } from "@/lib/validation/manifest-schema";
import { isUnderRoot, type UsableRoot } from "./allowlist-roots";
import type { SubprocessSkill } from "./registered-skill";

/** Result of building a skill from a valid manifest: the skill, or the `<message>` of the seed's build line. */
export type BuildResult = { ok: true; skill: SubprocessSkill } | { ok: false; message: string };

/** Category of a subprocess skill whose manifest names none (seed 000). */
export const DEFAULT_CATEGORY = "external";

async function checkEntry(entry: string, manifestDir: string, root: UsableRoot): Promise<{ ok: true; entryPath: string } | { ok: false; message: string }> {
  const escapes = (where: string) => ({ ok: false as const, message: `entry ${where} escapes allowlist root ${root.real}` });
  const resolved = path.resolve(manifestDir, entry);
  // Lexically first: `../x` and absolute entries outside the root are refused before touching the disk.
  if (!isUnderRoot(root.real, resolved) && !isUnderRoot(root.given, resolved)) return escapes(resolved);
  let real: string;
  try {
    real = await fs.realpath(resolved);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { ok: false, message: `entry ${resolved} does not exist` };
    if (code === "ELOOP") return { ok: false, message: `entry ${resolved} is a symlink loop` };
    return { ok: false, message: `entry ${resolved} cannot be resolved: ${code ?? String(error)}` };
  }
  if (!isUnderRoot(root.real, real)) return escapes(real);
  try {
    if (!(await fs.stat(real)).isFile()) return { ok: false, message: `entry ${real} is not a regular file` };
  } catch {
    return { ok: false, message: `entry ${real} does not exist` };
  }
  try {
    await fs.access(real, fs.constants.X_OK);
  } catch {
    return { ok: false, message: `entry ${real} is not executable` };
  }
  return { ok: true, entryPath: real };
}

/**
 * Builds a SubprocessSkill from a checked manifest (seed 000 buildSubprocessSkill): `entry` is
 * resolved against the manifest's folder (absolute entries must lie under the same root), must stay
 * under the root both as written and after realpath (a symlink out is rejected with the seed's
 * `entry <path> escapes allowlist root <root>`), must exist, be a regular file and be executable.
 * Defaults: category "external", class "safe", timeout `defaultTimeoutSeconds` when 0 or absent,
 * env_allow [] (duplicates dropped), schema = empty object schema. Takes the manifest, the warnings
 * found while checking it, the manifest's absolute path (under `root.real`), the root and the default
 * timeout in seconds. Never throws.
 */
export async function buildSubprocessSkill(
  manifest: SkillManifest,
  warnings: string[],
  manifestPath: string,
  root: UsableRoot,
  defaultTimeoutSeconds: number,
): Promise<BuildResult> {
  const workingDirectory = path.dirname(manifestPath);
  const entry = await checkEntry(manifest.entry, workingDirectory, root);
  if (!entry.ok) return entry;
  return {
    ok: true,
    skill: {
      name: manifest.name,
      kind: "subprocess",
      description: manifest.description,
      category: manifest.category ?? DEFAULT_CATEGORY,
      class: manifest.class ?? "safe",
      schema: manifest.schema ?? emptyArgsSchema(),
      timeoutSeconds: manifest.timeout_seconds || defaultTimeoutSeconds,
      envAllow: [...new Set(manifest.env_allow ?? [])],
      source: { root: root.real, path: manifestPath },
      available: true,
      unavailableReason: null,
      warnings,
      entryPath: entry.entryPath,
      workingDirectory,
    },
  };
}

/**
 * Checks, synchronously and just before spawning, that a registered skill's entry is still the file
 * the loader checked (seed 000 "Reglas de allow-list": the entry, canonicalised, must live under its
 * root — at run time too, not only at load time). The entry path and the working folder must still be
 * their own realpath (no component replaced by a symlink since the scan), under the root, and the
 * entry a regular executable file. Returns null when the skill may be spawned, else the reason, e.g.
 * `entry /etc/x escapes allowlist root /srv/skills` (the seed's form) or `entry … changed since the
 * loader checked it (now …); reload the skills`. Never throws. What remains is the instant between
 * this check and execve, which only a file-descriptor exec could close.
 */
export function recheckEntryBeforeSpawn(skill: Pick<SubprocessSkill, "entryPath" | "workingDirectory" | "source">): string | null {
  const root = skill.source.root;
  const canonical = (file: string, what: string): string | null => {
    let real: string;
    try {
      real = realpathSync(file);
    } catch (error) {
      return `${what} ${file} cannot be resolved any more: ${(error as NodeJS.ErrnoException).code ?? String(error)}`;
    }
    if (!isUnderRoot(root, real)) return `${what} ${real} escapes allowlist root ${root}`;
    if (real !== file) return `${what} ${file} changed since the loader checked it (now ${real}); reload the skills`;
    return null;
  };
  const problem = canonical(skill.workingDirectory, "folder") ?? canonical(skill.entryPath, "entry");
  if (problem) return problem;
  try {
    if (!statSync(skill.entryPath).isFile()) return `entry ${skill.entryPath} is not a regular file`;
    accessSync(skill.entryPath, fsConstants.X_OK);
  } catch {
    return `entry ${skill.entryPath} is not an executable file any more`;
  }
  return null;
}

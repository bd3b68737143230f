import fs from "node:fs";
import path from "node:path";
import { emptyArgsSchema, type SkillManifest } from "@/lib/validation/manifest-schema";
import { parseSandboxDeclaration } from "../executor/sandbox/sandbox-declaration";
import { isUnderRoot, type UsableRoot } from "./allowlist-roots";
import type { SkillSource, SubprocessSkill } from "./registered-skill";

/** Result of building a skill from a valid manifest: the skill, or the `<message>` of the seed's build line. */
export type BuildResult = { ok: true; skill: SubprocessSkill } | { ok: false; message: string };

/** Category of a subprocess skill whose manifest names none (seed 000). */
export const DEFAULT_CATEGORY = "external";

function checkEntry(entry: string, manifestDir: string, root: UsableRoot): { ok: true; entryPath: string } | { ok: false; message: string } {
  const escapes = (where: string) => ({ ok: false as const, message: `entry ${where} escapes allowlist root ${root.real}` });
  const resolved = path.resolve(manifestDir, entry);
  // Lexically first: `../x` and absolute entries outside the root are refused before touching the disk.
  if (!isUnderRoot(root.real, resolved) && !isUnderRoot(root.given, resolved)) return escapes(resolved);
  // The usual entry, a file beside skill.json: the walk reached that folder by its real path (it never
  // follows a symlinked folder), so a regular file there (lstat: not a link) is its own real path —
  // one system call instead of realpath's walk of every component and a stat. (Were the folder swapped
  // for a link since, every call's plan reads the folder again and refuses an entry not in it.)
  if (path.dirname(resolved) === manifestDir) {
    let stats: fs.Stats;
    try {
      stats = fs.lstatSync(resolved);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") return { ok: false, message: `entry ${resolved} does not exist` };
      return { ok: false, message: `entry ${resolved} cannot be resolved: ${code ?? String(error)}` };
    }
    if (stats.isFile()) return executableEntry(resolved);
    if (!stats.isSymbolicLink()) return { ok: false, message: `entry ${resolved} is not a regular file` };
  }
  let real: string;
  try {
    real = fs.realpathSync.native(resolved);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { ok: false, message: `entry ${resolved} does not exist` };
    if (code === "ELOOP") return { ok: false, message: `entry ${resolved} is a symlink loop` };
    return { ok: false, message: `entry ${resolved} cannot be resolved: ${code ?? String(error)}` };
  }
  if (!isUnderRoot(root.real, real)) return escapes(real);
  try {
    if (!fs.statSync(real).isFile()) return { ok: false, message: `entry ${real} is not a regular file` };
  } catch {
    return { ok: false, message: `entry ${real} does not exist` };
  }
  return executableEntry(real);
}

/** A regular file's entry result: executable by this process (access X_OK), or the build line's reason. */
function executableEntry(real: string): { ok: true; entryPath: string } | { ok: false; message: string } {
  try {
    fs.accessSync(real, fs.constants.X_OK);
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
 * env_allow [] (duplicates dropped), schema = empty object schema, sandbox = the default declaration
 * (a `sandbox` that parseSandboxDeclaration refuses fails the build with its message). Takes the manifest, the warnings
 * found while checking it, the manifest's absolute path (under `root.real`), the root and the default
 * timeout in seconds, and the manifest file read (SkillSource). Never throws.
 */
export async function buildSubprocessSkill(
  manifest: SkillManifest,
  warnings: string[],
  manifestPath: string,
  root: UsableRoot,
  defaultTimeoutSeconds: number,
  skillSource: SkillSource,
): Promise<BuildResult> {
  const workingDirectory = path.dirname(manifestPath);
  const sandbox = parseSandboxDeclaration(manifest.sandbox);
  if (!sandbox.ok) return { ok: false, message: sandbox.message };
  const entry = checkEntry(manifest.entry, workingDirectory, root);
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
      sandbox: sandbox.declaration,
      secretsNeeded: [],
      secretsGiven: [],
      entryPath: entry.entryPath,
      workingDirectory,
      skillSource,
    },
  };
}

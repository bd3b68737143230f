import fs from "node:fs/promises";
import path from "node:path";
import { RESOURCE_FOLDERS, type NativeResources, type ResourceFolder } from "@/lib/types/skill";
import { isUnderRoot } from "../allowlist-roots";
import { compareNames } from "../walk-manifests";

/** Most files listed per resource folder. */
export const MAX_RESOURCE_FILES = 1000;
/** Deepest sub-folder level walked below a resource folder (scripts/a/b/… up to 8 levels). */
export const MAX_RESOURCE_DEPTH = 8;

// A name with a control character or a backslash cannot be named safely in a path or a script enum.
const UNSAFE_NAME = /[\u0000-\u001f\u007f\\]/;

/**
 * Lists one resource folder of a skill: every regular file below `<skillDir>/<folder>` (recursive,
 * lexical order, at most MAX_RESOURCE_DEPTH levels and MAX_RESOURCE_FILES files), as paths relative to
 * the skill folder with `/` separators (`scripts/lib/report.py`). A symbolic link is listed only when
 * its realpath is a regular file still under the folder; one leading outside is left out with a
 * warning, as are links to folders, FIFOs, sockets and devices, names with control characters or a
 * backslash, and anything past the limits. A folder that is itself a symlink (or not a folder) lists
 * nothing, with a warning. `skillDir` must be a realpath. Never throws.
 */
async function listFolder(skillDir: string, folder: ResourceFolder, warnings: string[]): Promise<string[]> {
  const base = path.join(skillDir, folder);
  try {
    const stat = await fs.lstat(base);
    if (stat.isSymbolicLink()) {
      warnings.push(`${folder}/ is a symbolic link; its files are not listed (resources must live in the skill folder)`);
      return [];
    }
    if (!stat.isDirectory()) {
      warnings.push(`${folder} is not a folder; ignored`);
      return [];
    }
  } catch {
    return [];
  }
  const files: string[] = [];
  let stopped = false;
  async function visit(dir: string, relative: string, depth: number): Promise<void> {
    let entries;
    try {
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch (error) {
      warnings.push(`${relative}/ could not be read (${(error as NodeJS.ErrnoException).code ?? "error"}); its files are not listed`);
      return;
    }
    entries.sort((a, b) => compareNames(a.name, b.name));
    for (const entry of entries) {
      if (stopped) return;
      const shown = `${relative}/${entry.name}`;
      if (UNSAFE_NAME.test(entry.name)) {
        warnings.push(`left out ${JSON.stringify(shown)}: its name holds a control character or a backslash`);
        continue;
      }
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (depth >= MAX_RESOURCE_DEPTH) warnings.push(`left out ${shown}/: deeper than ${MAX_RESOURCE_DEPTH} levels below ${folder}/`);
        else await visit(full, shown, depth + 1);
        continue;
      }
      let isFile = entry.isFile();
      if (entry.isSymbolicLink()) {
        let real: string;
        try {
          real = await fs.realpath(full);
        } catch {
          warnings.push(`left out ${shown}: broken symbolic link`);
          continue;
        }
        if (!isUnderRoot(base, real)) {
          warnings.push(`left out ${shown}: symbolic link leading outside ${folder}/`);
          continue;
        }
        isFile = (await fs.stat(real).catch(() => null))?.isFile() ?? false;
        if (!isFile) {
          warnings.push(`left out ${shown}: symbolic link to something other than a regular file`);
          continue;
        }
      }
      if (!isFile) {
        warnings.push(`left out ${shown}: not a regular file`);
        continue;
      }
      if (files.length >= MAX_RESOURCE_FILES) {
        warnings.push(`${folder}/ holds more than ${MAX_RESOURCE_FILES} files; only the first ${MAX_RESOURCE_FILES} are listed`);
        stopped = true;
        return;
      }
      files.push(shown);
    }
  }
  await visit(base, folder, 1);
  return files.sort(compareNames);
}

/**
 * The level-3 resource index of a native skill (seed 004): the files of `scripts/`, `references/`,
 * `templates/` and `assets/` under `skillDir` (a realpath), each list sorted, paths with their folder
 * prefix. Problems (escaping symlinks, limits) are pushed to `warnings`. Never throws.
 */
export async function listResources(skillDir: string, warnings: string[]): Promise<NativeResources> {
  const resources: NativeResources = { scripts: [], references: [], templates: [], assets: [] };
  for (const folder of RESOURCE_FOLDERS) resources[folder] = await listFolder(skillDir, folder, warnings);
  return resources;
}

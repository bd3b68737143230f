import type { Dirent } from "node:fs";
import fs from "node:fs";
import path from "node:path";
import { RESOURCE_FOLDERS, type NativeResources, type ResourceFolder } from "@/lib/types/skill";
import { isUnderRoot } from "../allowlist-roots";
import { compareNames } from "../walk-manifests";
import { WorkSlices } from "../work-slices";

/** Most files listed per resource folder (and among the skill folder's other files). */
export const MAX_RESOURCE_FILES = 1000;
/** Deepest sub-folder level walked below a resource folder or the skill folder (scripts/a/b/… up to 8 levels). */
export const MAX_RESOURCE_DEPTH = 8;

/**
 * Most entries of one folder read for the listing: past this many the folder's files are not listed
 * (with a warning), so one folder of 100,000 names costs a bounded read and sort, not seconds of
 * synchronous work.
 */
export const MAX_FOLDER_ENTRIES = 10_000;

/**
 * The entries of `dir` read a batch at a time (fs.opendirSync), yielding through `slices` every 256,
 * or null past MAX_FOLDER_ENTRIES. Throws the file system's error when the folder cannot be read.
 */
export async function readFolderEntries(dir: string, slices: WorkSlices): Promise<Dirent[] | null> {
  const folder = fs.opendirSync(dir);
  const entries: Dirent[] = [];
  try {
    for (let entry = folder.readSync(); entry !== null; entry = folder.readSync()) {
      if (entries.length >= MAX_FOLDER_ENTRIES) return null;
      entries.push(entry);
      if (entries.length % 256 === 0) await slices.check();
    }
  } finally {
    folder.closeSync();
  }
  return entries;
}

// A name with a control character or a backslash cannot be named safely in a path or a script enum.
const UNSAFE_NAME = /[\u0000-\u001f\u007f\\]/;

/**
 * Lists the regular files below `<skillDir>/<relative>` (recursive, lexical order, at most
 * MAX_RESOURCE_DEPTH levels below `relative`'s own depth and `limit` files), as paths relative to the
 * skill folder with `/` separators (`scripts/lib/report.py`). A symbolic link is listed only when its
 * realpath is a regular file still under the skill folder and not `skillFile` (the SKILL.md's realpath);
 * one leading outside is left out with a warning, as are links to folders, FIFOs, sockets and devices,
 * names with control characters or a backslash, names the route cannot be asked for (not UTF-8, a
 * %-escape), hard-linked files, symlinks to hidden files, and anything past the limits. Hidden files and
 * folders are left out silently, as is what `skip(shown, entry)` names (SKILL.md, the resource folders
 * listed on their own).
 * `skillDir` must be a realpath. Never throws.
 */
async function listFiles(
  skillDir: string,
  skillFile: string,
  relative: string,
  warnings: string[],
  skip: (shown: string, entry: Dirent) => boolean = () => false,
  topEntries: Dirent[] | null,
  slices: WorkSlices,
): Promise<string[]> {
  const files: string[] = [];
  const where = relative === "" ? "the skill folder" : `${relative}/`;
  let stopped = false;
  async function visit(dir: string, prefix: string, depth: number): Promise<void> {
    // Synchronous calls, yielding every SLICE_MS: a folder of thousands of files or sub-folders never
    // holds the event loop for long (issue 10 point 1).
    await slices.check();
    let entries: Dirent[];
    try {
      // The top folder's entries when the caller read them already (listResources).
      const read = depth === 1 && topEntries !== null ? [...topEntries] : await readFolderEntries(dir, slices);
      if (read === null) {
        warnings.push(`${prefix === "" ? "the skill folder" : `${prefix}/`} holds more than ${MAX_FOLDER_ENTRIES} entries; its files are not listed`);
        return;
      }
      entries = read;
    } catch (error) {
      warnings.push(`${prefix === "" ? "the skill folder" : `${prefix}/`} could not be read (${(error as NodeJS.ErrnoException).code ?? "error"}); its files are not listed`);
      return;
    }
    entries.sort((a, b) => compareNames(a.name, b.name));
    for (const [index, entry] of entries.entries()) {
      if (stopped) return;
      if (index % 256 === 255) await slices.check();
      const shown = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
      // Hidden files and folders are never served, so never listed (nor offered as scripts).
      if (isHiddenName(entry.name) || skip(shown, entry)) continue;
      if (UNSAFE_NAME.test(entry.name)) {
        warnings.push(`left out ${JSON.stringify(shown)}: its name holds a control character or a backslash`);
        continue;
      }
      if (unservableName(entry.name)) {
        warnings.push(`left out ${JSON.stringify(shown)}: its name is not valid UTF-8 or holds a %-escape, so it cannot be asked for by name`);
        continue;
      }
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (depth >= MAX_RESOURCE_DEPTH) warnings.push(`left out ${shown}/: deeper than ${MAX_RESOURCE_DEPTH} levels below ${where}`);
        else await visit(full, shown, depth + 1);
        continue;
      }
      let isFile = entry.isFile();
      if (entry.isSymbolicLink()) {
        let real: string;
        try {
          real = fs.realpathSync.native(full);
        } catch {
          warnings.push(`left out ${shown}: broken symbolic link`);
          continue;
        }
        if (!isUnderRoot(skillDir, real)) {
          warnings.push(`left out ${shown}: symbolic link leading outside the skill folder`);
          continue;
        }
        if (real === skillFile) {
          warnings.push(`left out ${shown}: symbolic link to the skill's own ${path.basename(skillFile)} (level 2, not a resource)`);
          continue;
        }
        if (path.relative(skillDir, real).split(path.sep).some(isHiddenName)) {
          warnings.push(`left out ${shown}: symbolic link to a hidden file`);
          continue;
        }
        isFile = statOrNull(real)?.isFile() ?? false;
        if (!isFile) {
          warnings.push(`left out ${shown}: symbolic link to something other than a regular file`);
          continue;
        }
      }
      if (!isFile) {
        warnings.push(`left out ${shown}: not a regular file`);
        continue;
      }
      if ((statOrNull(full)?.nlink ?? 1) > 1) {
        warnings.push(`left out ${shown}: a hard-linked file (it may be another file's content, outside the folder), never served`);
        continue;
      }
      if (files.length >= MAX_RESOURCE_FILES) {
        warnings.push(`${where} holds more than ${MAX_RESOURCE_FILES} files; only the first ${MAX_RESOURCE_FILES} are listed`);
        stopped = true;
        return;
      }
      files.push(shown);
    }
  }
  await visit(relative === "" ? skillDir : path.join(skillDir, relative), relative, 1);
  return files.sort(compareNames);
}

/** fs.statSync, or null when it fails (a file gone, a permission refused). */
function statOrNull(file: string): fs.Stats | null {
  try {
    return fs.statSync(file, { throwIfNoEntry: false }) ?? null;
  } catch {
    return null;
  }
}

/**
 * One resource folder of a skill (listFiles under it), known by its entry in the skill folder
 * (`entry`, undefined when there is none); a folder that is a symlink, or not a folder, lists nothing,
 * with a warning.
 */
async function listFolder(skillDir: string, skillFile: string, folder: ResourceFolder, entry: Dirent | undefined, warnings: string[], slices: WorkSlices): Promise<string[]> {
  if (!entry) return [];
  if (entry.isSymbolicLink()) {
    warnings.push(`${folder}/ is a symbolic link; its files are not listed (resources must live in the skill folder)`);
    return [];
  }
  if (!entry.isDirectory()) {
    warnings.push(`${folder} is not a folder; ignored`);
    return [];
  }
  return listFiles(skillDir, skillFile, folder, warnings, () => false, null, slices);
}

/** True for a path segment a resource never has: hidden files and folders (`.env`, `.git/`) are not served. */
export function isHiddenName(name: string): boolean {
  return name.startsWith(".");
}

/**
 * True for a name the resource route cannot be asked for: one that was not valid UTF-8 on disk (Node
 * shows it with U+FFFD, a name no file has) or that holds a %-escape (the route decodes a path once
 * more, so `%2eenv` would be asked for as `.env`). Pure.
 */
function unservableName(name: string): boolean {
  if (name.includes("\uFFFD")) return true;
  if (!name.includes("%")) return false;
  try {
    return decodeURIComponent(name) !== name;
  } catch {
    return false;
  }
}

/**
 * The level-3 resource index of a native skill (seed 004; DESIGN.md "Native skills": any regular file
 * of the skill folder but SKILL.md itself): the files of `scripts/`, `references/`, `templates/` and
 * `assets/` under `skillDir` (a realpath), and in `other` every other file of the folder (`FORMS.md`,
 * `reference/api.md`), leaving out `skillFileName` (the SKILL.md in whatever case it was found; its
 * realpath is `skillFile`, which no listed link may lead to) and hidden files and folders. Each list sorted, paths relative to the folder. Problems (escaping
 * symlinks, limits) are pushed to `warnings`. Reads with synchronous calls and yields through `slices`
 * (the scan's own, so the walk of one folder and the next share a slice); `folderEntries`, the skill
 * folder's entries when the caller read them already. Never throws.
 */
export async function listResources(
  skillDir: string,
  skillFile: string,
  skillFileName: string,
  warnings: string[],
  slices: WorkSlices = new WorkSlices(),
  folderEntries: readonly Dirent[] | null = null,
): Promise<NativeResources> {
  const resources: NativeResources = { scripts: [], references: [], templates: [], assets: [], other: [] };
  // The skill folder is read once: its entries say which resource folders exist and list its other files.
  let entries: Dirent[];
  try {
    const read = folderEntries ? [...folderEntries] : await readFolderEntries(skillDir, slices);
    if (read === null) {
      warnings.push(`the skill folder holds more than ${MAX_FOLDER_ENTRIES} entries; its files are not listed`);
      return resources;
    }
    entries = read;
  } catch (error) {
    warnings.push(`the skill folder could not be read (${(error as NodeJS.ErrnoException).code ?? "error"}); its files are not listed`);
    return resources;
  }
  for (const folder of RESOURCE_FOLDERS) resources[folder] = await listFolder(skillDir, skillFile, folder, entries.find((entry) => entry.name === folder), warnings, slices);
  resources.other = await listFiles(
    skillDir,
    skillFile,
    "",
    warnings,
    (shown, entry) => {
      if (isHiddenName(entry.name)) return true;
      if (!shown.includes("/") && (shown === skillFileName || (RESOURCE_FOLDERS as readonly string[]).includes(shown))) return true;
      return false;
    },
    entries,
    slices,
  );
  return resources;
}

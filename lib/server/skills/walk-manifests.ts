import path from "node:path";
import { describeFsError, loaderLine, type LoaderLog } from "./loader-log";
import { listSorted, type Listing } from "./scan-memo";
import { WorkSlices } from "./work-slices";

/** File name of a subprocess skill manifest (seed 000). */
export const MANIFEST_FILE = "skill.json";

/** Folder names never descended into: they hold tooling, never manifests, and can be huge. */
export const SKIPPED_DIRECTORIES: ReadonlySet<string> = new Set([".git", "node_modules"]);

/** Bounds of one root's walk: how deep it goes below the root, and how many entries it looks at. */
export interface WalkLimits {
  maxDepth: number;
  maxEntries: number;
}

/** Limits used unless a caller passes others: 32 levels, 100 000 entries per root. */
export const DEFAULT_WALK_LIMITS: WalkLimits = { maxDepth: 32, maxEntries: 100_000 };

/** A `skill.json` found by the walk: its absolute path and what the directory entry itself is. */
export interface FoundManifest {
  path: string;
  /** "file" for a regular file, "symlink" for a symbolic link (not followed yet), "other" for a FIFO, socket, … */
  kind: "file" | "symlink" | "other";
}

/** Orders names by their UTF-8 bytes, like Go's sort.Strings, so the walk order never depends on locale. */
export function compareNames(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

/**
 * Walks `root` (an absolute, realpath'd directory) depth-first in lexical order, like Go's
 * filepath.Walk (seed 000 "Comportamiento del loader"): a folder's entries are sorted by name and
 * visited in turn, descending into sub-directories as they come, so "first" is deterministic. Symlinks
 * to directories are not followed (which also rules out loops); `.git` and `node_modules` are not
 * entered. Yields every entry named exactly `skill.json` that is not a directory. An unreadable
 * folder is logged and skipped, as is anything past the limits. Never throws.
 * Each folder is listed with one synchronous call (a scan of 10,000 skill folders is 10,000 readdirs,
 * and a thread-pool round trip each cost more than the call), yielding to the event loop every
 * SLICE_MS through `slices` (work-slices.ts; the caller's, so reading the manifests shares them).
 * `list` gives a folder's sorted listing (default listSorted; an incremental rescan passes its
 * ScanMemo's, which lists again only the folders that changed).
 */
export async function* walkManifests(
  root: string,
  log: LoaderLog,
  limits: WalkLimits = DEFAULT_WALK_LIMITS,
  slices: WorkSlices = new WorkSlices(),
  list: (dir: string) => Listing = listSorted,
): AsyncGenerator<FoundManifest> {
  let seen = 0;
  async function* visit(dir: string, depth: number): AsyncGenerator<FoundManifest> {
    await slices.check();
    const listed = list(dir);
    if ("error" in listed) {
      log.write(loaderLine.unreadableDirectory(dir, describeFsError(listed.error)));
      return;
    }
    for (const entry of listed.entries) {
      const full = path.join(dir, entry.name);
      if (++seen > limits.maxEntries) {
        if (seen === limits.maxEntries + 1) log.write(loaderLine.tooMany(root, dir, limits.maxEntries));
        return;
      }
      if (entry.isDirectory()) {
        if (SKIPPED_DIRECTORIES.has(entry.name)) continue;
        if (depth >= limits.maxDepth) {
          log.write(loaderLine.tooDeep(full, root, limits.maxDepth));
          continue;
        }
        yield* visit(full, depth + 1);
      } else if (entry.name === MANIFEST_FILE) {
        yield { path: full, kind: entry.isFile() ? "file" : entry.isSymbolicLink() ? "symlink" : "other" };
      }
    }
  }
  yield* visit(root, 0);
}

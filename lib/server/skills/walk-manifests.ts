import type { Dirent } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { describeFsError, loaderLine, type LoaderLog } from "./loader-log";

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

/** How many sibling folders' listings the walk reads ahead of the one it is in (see walkManifests). */
export const WALK_READ_AHEAD = 16;

type Listing = { entries: Dirent[] } | { error: unknown };

/** Lists `dir` sorted by name (compareNames); a failure is returned, not thrown, so a listing read ahead and never used rejects nothing. */
async function listSorted(dir: string): Promise<Listing> {
  try {
    const entries = await fs.readdir(dir, { withFileTypes: true });
    entries.sort((a, b) => compareNames(a.name, b.name));
    return { entries };
  } catch (error) {
    return { error };
  }
}

/**
 * Walks `root` (an absolute, realpath'd directory) depth-first in lexical order, like Go's
 * filepath.Walk (seed 000 "Comportamiento del loader"): a folder's entries are sorted by name and
 * visited in turn, descending into sub-directories as they come, so "first" is deterministic. Symlinks
 * to directories are not followed (which also rules out loops); `.git` and `node_modules` are not
 * entered. Yields every entry named exactly `skill.json` that is not a directory. An unreadable
 * folder is logged and skipped, as is anything past the limits. Never throws.
 * The listings of the next WALK_READ_AHEAD sibling folders are read while the current one is walked
 * (a scan of 10,000 skill folders is 10,000 readdirs); that only overlaps the I/O: what is yielded
 * and logged, and in which order, is exactly that of the one-by-one walk.
 */
export async function* walkManifests(root: string, log: LoaderLog, limits: WalkLimits = DEFAULT_WALK_LIMITS): AsyncGenerator<FoundManifest> {
  let seen = 0;
  async function* visit(dir: string, depth: number, listing: Promise<Listing>): AsyncGenerator<FoundManifest> {
    const listed = await listing;
    if ("error" in listed) {
      log.write(loaderLine.unreadableDirectory(dir, describeFsError(listed.error)));
      return;
    }
    const entries = listed.entries;
    const descends = (entry: Dirent) => entry.isDirectory() && !SKIPPED_DIRECTORIES.has(entry.name) && depth < limits.maxDepth;
    // Listings read ahead, by entry index; `ahead` is the next index considered for reading ahead.
    const readAhead = new Map<number, Promise<Listing>>();
    let ahead = 0;
    for (const [index, entry] of entries.entries()) {
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
        for (ahead = Math.max(ahead, index); ahead < entries.length && readAhead.size < WALK_READ_AHEAD; ahead++) {
          const next = entries[ahead]!;
          if (descends(next)) readAhead.set(ahead, listSorted(path.join(dir, next.name)));
        }
        const own = readAhead.get(index) ?? listSorted(full);
        readAhead.delete(index);
        yield* visit(full, depth + 1, own);
      } else if (entry.name === MANIFEST_FILE) {
        yield { path: full, kind: entry.isFile() ? "file" : entry.isSymbolicLink() ? "symlink" : "other" };
      }
    }
  }
  yield* visit(root, 0, listSorted(root));
}

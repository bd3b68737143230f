import path from "node:path";
import { describeFsError, loaderLine } from "./loader-log";
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

/** One step of a walk in order: a log line the walk wrote, or a manifest it found. */
export type WalkItem = { line: string } | { found: FoundManifest };

/** What the walk of one folder gave: its items in order, and how many entries it counted (against maxEntries). */
export interface SubtreeWalk {
  items: readonly WalkItem[];
  entries: number;
}

/** Where a walk keeps and finds the walks of folders nothing changed under (ScanMemo). */
export interface SubtreeWalks {
  get(dir: string): SubtreeWalk | undefined;
  set(dir: string, walk: SubtreeWalk): void;
}

/**
 * Walks `root` (an absolute, realpath'd directory) depth-first in lexical order, like Go's
 * filepath.Walk (seed 000 "Comportamiento del loader"): a folder's entries are sorted by name and
 * visited in turn, descending into sub-directories as they come, so "first" is deterministic. Symlinks
 * to directories are not followed (which also rules out loops); `.git` and `node_modules` are not
 * entered. Returns, in order, every entry named exactly `skill.json` that is not a directory and the
 * log lines of the walk: an unreadable folder is logged and skipped, as is anything past the limits
 * (the walk stops at the entry past `maxEntries`). Never throws.
 * Each folder is listed with one synchronous call (a scan of 10,000 skill folders is 10,000 readdirs,
 * and a thread-pool round trip each cost more than the call), yielding to the event loop every
 * SLICE_MS through `slices` (work-slices.ts; the caller's, so reading the manifests shares them).
 * `list` gives a folder's sorted listing (default listSorted; an incremental rescan passes its
 * ScanMemo's, which lists again only the folders that changed), and `subtrees` the walks of folders
 * under which nothing was added, removed or renamed since (reused whole when they fit in what is left
 * of `maxEntries`; a walk that hit a limit is never kept).
 */
export async function walkManifests(
  root: string,
  limits: WalkLimits = DEFAULT_WALK_LIMITS,
  slices: WorkSlices = new WorkSlices(),
  list: (dir: string) => Listing = listSorted,
  subtrees?: SubtreeWalks,
): Promise<WalkItem[]> {
  let seen = 0;
  let stopped = false;
  async function visit(dir: string, depth: number, into: WalkItem[]): Promise<void> {
    const kept = subtrees?.get(dir);
    if (kept && seen + kept.entries <= limits.maxEntries) {
      for (const item of kept.items) into.push(item);
      seen += kept.entries;
      return;
    }
    await slices.check();
    const from = seen;
    const items: WalkItem[] = [];
    const listed = list(dir);
    if ("error" in listed) items.push({ line: loaderLine.unreadableDirectory(dir, describeFsError(listed.error)) });
    else {
      for (const entry of listed.entries) {
        if (stopped) break;
        const full = path.join(dir, entry.name);
        if (++seen > limits.maxEntries) {
          items.push({ line: loaderLine.tooMany(root, dir, limits.maxEntries) });
          stopped = true;
          break;
        }
        if (entry.isDirectory()) {
          if (SKIPPED_DIRECTORIES.has(entry.name)) continue;
          if (depth >= limits.maxDepth) {
            items.push({ line: loaderLine.tooDeep(full, root, limits.maxDepth) });
            continue;
          }
          await visit(full, depth + 1, items);
        } else if (entry.name === MANIFEST_FILE) {
          items.push({ found: { path: full, kind: entry.isFile() ? "file" : entry.isSymbolicLink() ? "symlink" : "other" } });
        }
      }
    }
    if (!stopped) subtrees?.set(dir, { items, entries: seen - from });
    for (const item of items) into.push(item);
  }
  const items: WalkItem[] = [];
  await visit(root, 0, items);
  return items;
}

import fs, { type Dirent } from "node:fs";
import path from "node:path";

/** A folder's entries sorted by name (compareNames), or the error listing it failed with. */
export type Listing = { entries: Dirent[] } | { error: unknown };

/**
 * What changed on disk at one path, as the root watcher saw it: `entries` when something was added,
 * removed or renamed there (the listing of its folder changed; a folder itself may be gone or new),
 * `content` when a file's bytes or mode changed in place (no listing changed).
 */
export interface DiskChange {
  path: string;
  kind: "entries" | "content";
}

/** One memoised examination: its result, and the paths whose change makes it stale (dependencies). */
interface Memoised<T> {
  value: T;
  /** Absolute paths: a change at, below or above (a removed ancestor) any of them voids the value. */
  dependsOn: readonly string[];
}

/** Most changed paths a targeted rescan takes one by one; more (a checkout, a copy of a tree) forget everything. */
export const MAX_TARGETED_CHANGES = 256;

/**
 * What the loaders read on their last scans, kept so that a rescan after a few changes on disk reads
 * and parses only what they touched (issue 13 point 4: the rescan is incremental): the sorted listing
 * of every folder walked, and each examination (a manifest's parse and build, a native skill folder's
 * reading) with the paths it depends on. Nothing here is trusted without a report of what changed: a
 * full scan (start-up, Rescan) forgets everything first (`forget`), and the root watcher's changes
 * void what they touch (`invalidate`) before the next targeted scan reads the rest from here. Not
 * thread-safe across overlapping scans: the registry runs one scan at a time.
 */
export class ScanMemo {
  private readonly listings = new Map<string, Listing>();
  private readonly examined = new Map<string, Memoised<unknown>>();

  /** Forgets every listing and examination (a full scan reads everything again). */
  forget(): void {
    this.listings.clear();
    this.examined.clear();
  }

  /** How many folder listings and examinations are kept (tests, the bench). */
  size(): { listings: number; examined: number } {
    return { listings: this.listings.size, examined: this.examined.size };
  }

  /** The listing of `dir` (absolute), read and sorted by `read` on first use. */
  listing(dir: string, read: (dir: string) => Listing): Listing {
    let listing = this.listings.get(dir);
    if (!listing) {
      listing = read(dir);
      this.listings.set(dir, listing);
    }
    return listing;
  }

  /** The examination kept under `key` (a manifest's or skill folder's absolute path), or undefined. */
  recall<T>(key: string): T | undefined {
    return this.examined.get(key)?.value as T | undefined;
  }

  /** Keeps the examination under `key`, voided when anything at, below or above a `dependsOn` path changes. */
  remember<T>(key: string, value: T, dependsOn: readonly string[]): void {
    this.examined.set(key, { value, dependsOn });
  }

  /**
   * Voids what `changes` touch: the listings of each changed folder and of the folder holding each
   * changed entry (`entries` changes only; a file edited in place changes no listing), every listing
   * below a changed path (a folder removed or replaced), and every examination with a dependency at,
   * below or above a changed path. More than MAX_TARGETED_CHANGES changes forget everything. Linear
   * in what is kept, with a set lookup per ancestor of each dependency.
   */
  invalidate(changes: readonly DiskChange[]): void {
    if (changes.length > MAX_TARGETED_CHANGES) return this.forget();
    const changed = new Set<string>();
    const entriesChanged = new Set<string>();
    const listingsVoided = new Set<string>();
    // Every changed path and each of its ancestors: a dependency among them has a change at or below it.
    const atOrAbove = new Set<string>();
    for (const change of changes) {
      const at = path.resolve(change.path);
      changed.add(at);
      if (change.kind === "entries") {
        entriesChanged.add(at);
        listingsVoided.add(at);
        listingsVoided.add(path.dirname(at));
      }
      for (let dir = at; !atOrAbove.has(dir); dir = path.dirname(dir)) {
        atOrAbove.add(dir);
        if (dir === path.dirname(dir)) break;
      }
    }
    // Whether `dependency` lies below one of `paths` (a removed or replaced folder above it).
    const below = (dependency: string, paths: ReadonlySet<string>): boolean => {
      if (paths.size === 0) return false;
      for (let dir = path.dirname(dependency); ; dir = path.dirname(dir)) {
        if (paths.has(dir)) return true;
        if (dir === path.dirname(dir)) return false;
      }
    };
    for (const dir of this.listings.keys()) {
      if (listingsVoided.has(dir) || below(dir, entriesChanged)) this.listings.delete(dir);
    }
    for (const [key, memoised] of this.examined) {
      if (memoised.dependsOn.some((dependency) => atOrAbove.has(dependency) || below(dependency, changed))) this.examined.delete(key);
    }
  }
}

/**
 * Lists `dir` sorted by the UTF-8 bytes of the names (compareNames' order, so walks never depend on
 * the locale), each name's bytes made once rather than twice per comparison. A failure is returned,
 * not thrown.
 */
export function listSorted(dir: string): Listing {
  try {
    const entries = fs.readdirSync(dir, { withFileTypes: true });
    return { entries: sortByNameBytes(entries) };
  } catch (error) {
    return { error };
  }
}

/** `entries` sorted by the UTF-8 bytes of their names (a new array). */
export function sortByNameBytes<T extends { name: string }>(entries: readonly T[]): T[] {
  if (entries.every((entry) => isAscii(entry.name))) return [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const keyed = entries.map((entry) => ({ entry, bytes: Buffer.from(entry.name, "utf8") }));
  keyed.sort((a, b) => Buffer.compare(a.bytes, b.bytes));
  return keyed.map((item) => item.entry);
}

function isAscii(text: string): boolean {
  // eslint-disable-next-line no-control-regex
  return /^[\x00-\x7f]*$/.test(text);
}

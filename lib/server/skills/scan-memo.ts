import fs, { type Dirent } from "node:fs";
import path from "node:path";
import type { SubtreeWalk, SubtreeWalks } from "./walk-manifests";

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

/** The kinds of examination a memo keeps apart: a subprocess manifest's, a native skill folder's. */
export type ExaminationKind = "subprocess" | "native";

/** Most changed paths a targeted rescan takes one by one; more are taken by folder, and more folders than this forget everything. */
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
  /** Examinations by kind of skill, each keyed by a path (a manifest's, a native skill folder's). */
  private readonly examined: Record<ExaminationKind, Map<string, Memoised<unknown>>> = { subprocess: new Map(), native: new Map() };
  private readonly walks = new Map<string, SubtreeWalk>();

  /**
   * Each loader's last settlement (its first-wins choices, entries and log), by loader and roots (the
   * subprocess loader runs once over the configured roots and once over the installed packs), which a
   * scan that differs only in skills read again patches instead of settling everything again. The
   * loaders check that nothing else differs; `forget` drops them.
   */
  readonly settled = new Map<string, unknown>();

  /** The walks of folders under which no entry was added, removed or renamed since (walkManifests reuses them). */
  readonly subtrees: SubtreeWalks = {
    get: (dir) => this.walks.get(dir),
    set: (dir, walk) => void this.walks.set(dir, walk),
  };

  /** Forgets every listing, walk and examination (a full scan reads everything again). */
  forget(): void {
    this.listings.clear();
    this.examined.subprocess.clear();
    this.examined.native.clear();
    this.walks.clear();
    this.settled.clear();
  }

  /** How many folder listings, folder walks and examinations are kept (tests, the bench). */
  size(): { listings: number; walks: number; examined: number } {
    return { listings: this.listings.size, walks: this.walks.size, examined: this.examined.subprocess.size + this.examined.native.size };
  }

  /** The listing of `dir` (absolute), read and sorted by `read` (default listSorted) on first use. */
  listing(dir: string, read: (dir: string) => Listing = listSorted): Listing {
    let listing = this.listings.get(dir);
    if (!listing) {
      listing = read(dir);
      this.listings.set(dir, listing);
    }
    return listing;
  }

  /** The examination of `kind` kept under `key` (a manifest's or a native skill folder's absolute path), or undefined. */
  recall<T>(kind: ExaminationKind, key: string): T | undefined {
    return this.examined[kind].get(key)?.value as T | undefined;
  }

  /** Keeps the examination of `kind` under `key`, voided when anything at, below or above a `dependsOn` path changes. */
  remember<T>(kind: ExaminationKind, key: string, value: T, dependsOn: readonly string[]): void {
    this.examined[kind].set(key, { value, dependsOn });
  }

  /**
   * Voids what `changes` touch: the listings of each changed folder and of the folder holding each
   * changed entry (`entries` changes only; a file edited in place changes no listing), every listing
   * and folder walk below such a change (a folder removed or replaced), the walks of the folders
   * above one (their walk holds the changed folder's), and every examination with a dependency at,
   * below or above any changed path. More than MAX_TARGETED_CHANGES changes are taken as changes of
   * their folders; more folders than that forget everything.
   * Linear in what is kept, with a set lookup per ancestor of each kept path.
   */
  invalidate(reported: readonly DiskChange[]): void {
    let changes = reported;
    // A burst (a checkout, a copy of a tree) is taken folder by folder: each change becomes its folder's
    // (entries), so 300 files in 16 skill folders void 16 folders, not everything.
    if (changes.length > MAX_TARGETED_CHANGES) changes = [...new Set(changes.map((change) => path.dirname(path.resolve(change.path))))].map((folder) => ({ path: folder, kind: "entries" as const }));
    if (changes.length > MAX_TARGETED_CHANGES) return this.forget();
    const entriesChanged = new Set<string>();
    const listingsVoided = new Set<string>();
    // Every changed path and each of its ancestors: a dependency among them has a change at or below it.
    const atOrAbove = new Set<string>();
    // The same for the changes of entries only: a folder among them has a walk that changed.
    const entriesAtOrAbove = new Set<string>();
    const addAncestors = (at: string, into: Set<string>) => {
      for (let dir = at; !into.has(dir); dir = path.dirname(dir)) {
        into.add(dir);
        if (dir === path.dirname(dir)) break;
      }
    };
    for (const change of changes) {
      const at = path.resolve(change.path);
      if (change.kind === "entries") {
        entriesChanged.add(at);
        listingsVoided.add(at);
        listingsVoided.add(path.dirname(at));
        addAncestors(at, entriesAtOrAbove);
      }
      addAncestors(at, atOrAbove);
    }
    // Whether `path` lies below one of the folders whose entries changed (removed or replaced: what was
    // below it is gone or other). A prefix test per changed folder while they are few, else a set
    // lookup per ancestor. A file edited in place has nothing below it.
    const prefixes = [...entriesChanged].map((folder) => (folder.endsWith(path.sep) ? folder : `${folder}${path.sep}`));
    const belowChanged = (candidate: string): boolean => {
      if (prefixes.length === 0) return false;
      if (prefixes.length <= 16) return prefixes.some((prefix) => candidate.startsWith(prefix));
      for (let dir = path.dirname(candidate); ; dir = path.dirname(dir)) {
        if (entriesChanged.has(dir)) return true;
        if (dir === path.dirname(dir)) return false;
      }
    };
    for (const dir of this.listings.keys()) {
      if (listingsVoided.has(dir) || belowChanged(dir)) this.listings.delete(dir);
    }
    if (entriesChanged.size > 0) {
      for (const dir of this.walks.keys()) {
        if (entriesAtOrAbove.has(dir) || belowChanged(dir)) this.walks.delete(dir);
      }
    }
    for (const examined of Object.values(this.examined)) {
      for (const [key, memoised] of examined) {
        if (memoised.dependsOn.some((dependency) => atOrAbove.has(dependency) || belowChanged(dependency))) examined.delete(key);
      }
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

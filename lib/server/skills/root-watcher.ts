import fs from "node:fs";
import path from "node:path";
import { FolderWatch } from "./folder-watch";
import type { DiskChange } from "./scan-memo";

/** Quiet time (ms) after the last change before the changes are handed on. */
export const WATCH_QUIET_MS = 200;

/** Longest time (ms) changes wait after the first of them, however busy the disk stays. */
export const WATCH_MAX_WAIT_MS = 1_000;

/**
 * How often (ms) the watcher checks that each root is still the folder it watches: a root removed,
 * replaced (`rm -rf root && git clone … root`) or created after the start sends no event of its own.
 */
export const ROOT_CHECK_MS = 1_000;

/**
 * More events than FLOOD_EVENTS within FLOOD_WINDOW_MS (ms) count as a flood: inotify's queue (16,384
 * events by default) may have overflowed and dropped some, which Node never reports, so once it quiets
 * every root is read again and watched afresh.
 */
export const FLOOD_EVENTS = 2_000;
export const FLOOD_WINDOW_MS = 1_000;

/** A running watch of folders: what it watches, whether it failed, and how to stop it. */
export interface RootWatcher {
  /** The folders watched now (realpaths of the roots that exist, sorted). */
  paths(): string[];
  /** Resolves once every folder below the watched ones is watched. */
  readonly ready: Promise<void>;
  /** The reason watching stopped working, or null while it works. */
  failure(): string | null;
  /** Stops watching; pending changes are dropped. */
  close(): Promise<void>;
}

/**
 * Watches `roots` (the allow-list roots and the skills path) for skill folders changing on disk (issue
 * 13 point 4: the registry follows the disk within 2 s without a Rescan), through FolderWatch (inotify,
 * one watch per folder, every event the kernel sends), as deep as the loader walks, `.git` and
 * `node_modules` left out as the walk leaves them; each root itself is checked every ROOT_CHECK_MS. Changes are collected per path (an add, removal or
 * rename is `entries`, an edit in place `content`) and handed to `onChanges` once no change came for
 * WATCH_QUIET_MS, or WATCH_MAX_WAIT_MS after the first, whichever is sooner; `onChanges` is never run
 * twice at once (changes that come meanwhile wait for the next round). A watch error (the inotify
 * limit reached: ENOSPC) stops the watch and is given to `onFailure` with a reason an operator can act on.
 */
export function watchRoots(roots: readonly string[], onChanges: (changes: DiskChange[]) => Promise<void>, onFailure: (reason: string) => void): RootWatcher {
  // Each root as configured, and the folder it is now: a root that appears, goes or is replaced is
  // (un)watched and reported changed as a whole (ROOT_CHECK_MS).
  const rootStates = [...new Set(roots.map((root) => path.resolve(root)))].map((given) => ({ given, ...identifyRoot(given) }));
  /** The roots' folders now (realpaths of the roots that exist, sorted). */
  const current = (): string[] => [...new Set(rootStates.flatMap((state) => (state.real === null ? [] : [state.real])))].sort();
  let failure: string | null = null;
  let closed = false;
  const waiting = new Map<string, DiskChange["kind"]>();
  let quietTimer: NodeJS.Timeout | null = null;
  let firstAt = 0;
  let handing: Promise<void> | null = null;

  // Hands the changes collected so far to onChanges, unless a round is still running (its end
  // schedules the next one).
  const handOn = (): void => {
    if (quietTimer) clearTimeout(quietTimer);
    quietTimer = null;
    if (closed || waiting.size === 0 || handing) return;
    let changes = [...waiting].map(([changed, kind]) => ({ path: changed, kind }));
    waiting.clear();
    firstAt = 0;
    if (flooded) {
      // The kernel may have dropped events (Node does not pass inotify's overflow notice on): every
      // root is read again as a whole, and watched afresh so folders made meanwhile are watched too.
      flooded = false;
      changes = current().map((root) => ({ path: root, kind: "entries" as const }));
      for (const root of current()) {
        folders.unwatchTree(root);
        void folders.watchTree(root);
      }
    }
    handing = onChanges(changes)
      .catch((error: unknown) => console.error("skill loader: rescanning the changed skill folders failed:", error))
      .finally(() => {
        handing = null;
        if (waiting.size > 0) schedule();
      });
  };
  const schedule = (): void => {
    if (quietTimer) clearTimeout(quietTimer);
    quietTimer = setTimeout(handOn, Math.max(0, Math.min(WATCH_QUIET_MS, firstAt + WATCH_MAX_WAIT_MS - Date.now())));
    quietTimer.unref();
  };
  // Events counted per FLOOD_WINDOW_MS: past FLOOD_EVENTS the next round reads every root again.
  let windowStart = 0;
  let windowEvents = 0;
  let flooded = false;
  const note = (kind: DiskChange["kind"], changed: string): void => {
    if (closed) return;
    const now = Date.now();
    if (now - windowStart > FLOOD_WINDOW_MS) {
      windowStart = now;
      windowEvents = 0;
    }
    if (++windowEvents > FLOOD_EVENTS) flooded = true;
    if (waiting.size === 0 && firstAt === 0) firstAt = Date.now();
    // An add or removal outweighs an edit of the same path.
    if (waiting.get(changed) !== "entries") waiting.set(changed, kind);
    schedule();
  };

  const folders = new FolderWatch(
    (event) => note(event.kind, event.path),
    (reason) => {
      if (closed || failure !== null) return;
      failure = reason;
      onFailure(reason);
      void close();
    },
  );
  // In path order, so a root inside another is already watched (as the same folder) when its turn comes.
  const ready = (async () => {
    for (const folder of current()) await folders.watchTree(folder);
  })();

  const checkRoots = setInterval(() => {
    if (closed) return;
    for (const state of rootStates) {
      const now = identifyRoot(state.given);
      if (now.real === state.real && now.identity === state.identity) continue;
      const before = state.real;
      state.real = now.real;
      state.identity = now.identity;
      if (before !== null && !rootStates.some((other) => other.real === before)) folders.unwatchTree(before);
      if (now.real !== null) void folders.watchTree(now.real);
      for (const changed of new Set([state.given, before, now.real])) if (changed !== null) note("entries", changed);
    }
  }, ROOT_CHECK_MS);
  checkRoots.unref();

  async function close(): Promise<void> {
    closed = true;
    clearInterval(checkRoots);
    if (quietTimer) clearTimeout(quietTimer);
    waiting.clear();
    folders.close();
  }

  return { paths: current, ready, failure: () => failure, close };
}

/** What a configured root is now: its realpath and `dev:ino:birth time` when it is a folder, else nulls. Never throws. */
function identifyRoot(given: string): { real: string | null; identity: string | null } {
  try {
    const real = fs.realpathSync.native(given);
    const stat = fs.statSync(real);
    // dev:ino alone comes back at once for a root made again (ext4 reuses the number); the birth time does not.
    return stat.isDirectory() ? { real, identity: `${stat.dev}:${stat.ino}:${stat.birthtimeMs}` } : { real: null, identity: null };
  } catch {
    return { real: null, identity: null };
  }
}

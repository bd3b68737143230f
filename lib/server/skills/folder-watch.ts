import fs from "node:fs";
import path from "node:path";
import { DEFAULT_WALK_LIMITS, SKIPPED_DIRECTORIES } from "./walk-manifests";
import { WorkSlices } from "./work-slices";

/** Most folders one FolderWatch watches (each is one inotify watch of the user's fs.inotify.max_user_watches). */
export const MAX_WATCHED_FOLDERS = 50_000;

/** What a FolderWatch reports: a path at which something changed, and whether entries came or went there (`entries`) or a file changed in place (`content`). */
export type FolderEvent = { path: string; kind: "entries" | "content" };

/**
 * Watches every folder of a tree with one `fs.watch` (inotify) per folder, as deep as the loader walks
 * (DEFAULT_WALK_LIMITS.maxDepth), never following a symbolic link and never entering `.git` or
 * `node_modules`. Unlike chokidar (the library this replaced), it reports every event the kernel
 * sends, unfiltered: a file renamed over another with the old mtime, or a chmod, is a change (chokidar
 * drops a change whose mtime it has seen); and a folder whose name comes or goes is watched afresh, so
 * a folder removed and made again at the same path (often with the same inode number) is watched
 * again (chokidar kept the dead watch and never watched the new folder: every later change in it was
 * missed). A folder that appears is watched with all it
 * holds, and reported as a whole (`entries` at its path: the scan reads it again, files made before
 * its watch included). The caller sees events through `onEvent`; a watch error other than a folder
 * going away (ENOSPC: the inotify limit; more than MAX_WATCHED_FOLDERS folders) goes to `onFailure`
 * once, after which nothing more is reported.
 */
export class FolderWatch {
  private readonly watched = new Map<string, { watcher: fs.FSWatcher; identity: string }>();
  /** The watched folders right below each watched folder, so a subtree is unwatched in time linear in its own size. */
  private readonly children = new Map<string, Set<string>>();
  private failed = false;
  private closed = false;

  constructor(
    private readonly onEvent: (event: FolderEvent) => void,
    private readonly onFailure: (reason: string) => void,
  ) {}

  /** The folders watched now (absolute paths). */
  folders(): string[] {
    return [...this.watched.keys()];
  }

  /**
   * Watches `root` (a realpath'd folder) and every folder below it, yielding through `slices` while it
   * lists large trees. A root already watched as the same folder is left as it is.
   */
  async watchTree(root: string, slices: WorkSlices = new WorkSlices()): Promise<void> {
    await this.watchFolder(root, 0, slices);
  }

  /**
   * Stops watching `folder` and every folder below it, in time linear in that subtree (a flood of
   * renames in a tree of 10,000 folders once cost a pass over all of them per event, and the console
   * served nothing while it drained the events).
   */
  unwatchTree(folder: string): void {
    const entry = this.watched.get(folder);
    if (entry) {
      entry.watcher.close();
      this.watched.delete(folder);
      this.children.get(path.dirname(folder))?.delete(folder);
    }
    const below = this.children.get(folder);
    if (!below) return;
    this.children.delete(folder);
    for (const child of below) this.unwatchTree(child);
  }

  /** Stops every watch. */
  close(): void {
    this.closed = true;
    for (const entry of this.watched.values()) entry.watcher.close();
    this.watched.clear();
    this.children.clear();
  }

  private fail(reason: string): void {
    if (this.failed || this.closed) return;
    this.failed = true;
    this.close();
    this.onFailure(reason);
  }

  private async watchFolder(folder: string, depth: number, slices: WorkSlices): Promise<void> {
    if (this.closed || this.failed) return;
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(folder);
    } catch {
      return;
    }
    if (!stat.isDirectory()) return;
    // The inode number alone comes back at once for a folder made again (ext4 reuses it); with its
    // birth time it names this folder.
    const identity = `${stat.dev}:${stat.ino}:${stat.birthtimeMs}`;
    const known = this.watched.get(folder);
    if (known?.identity === identity) return;
    if (known) this.unwatchTree(folder);
    if (this.watched.size >= MAX_WATCHED_FOLDERS) return this.fail(`more than ${MAX_WATCHED_FOLDERS} folders to watch; changes on disk wait for Rescan`);
    let watcher: fs.FSWatcher;
    try {
      watcher = fs.watch(folder, { persistent: false }, (eventType, name) => this.handle(folder, depth, eventType, name));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOSPC" || code === "EMFILE") return this.fail(`the system's limit of watched folders was reached (${code}; raise fs.inotify.max_user_watches); changes on disk wait for Rescan`);
      // Gone or unreadable meanwhile: the scan reports it; nothing to watch.
      return;
    }
    watcher.on("error", () => {
      // The folder went away (its watch ends with it): its parent's event reports that.
      watcher.close();
      if (this.watched.get(folder)?.watcher === watcher) this.watched.delete(folder);
    });
    // fs.watch follows links on the way to the folder: a folder above it swapped for a symbolic link
    // since the lstat would put the watch outside the root. Only a folder that is its own real path is
    // kept (a swap back within the same instant can still slip by; the loader, which reads through
    // O_NOFOLLOW descriptors, is the boundary — a stray watch only costs rescans and watches).
    let real: string | null;
    try {
      real = fs.realpathSync.native(folder);
    } catch {
      real = null;
    }
    if (real !== folder) {
      watcher.close();
      return;
    }
    this.watched.set(folder, { watcher, identity });
    if (depth > 0) {
      const parent = path.dirname(folder);
      let siblings = this.children.get(parent);
      if (!siblings) this.children.set(parent, (siblings = new Set()));
      siblings.add(folder);
    }
    if (depth >= DEFAULT_WALK_LIMITS.maxDepth) return;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(folder, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (!entry.isDirectory() || SKIPPED_DIRECTORIES.has(entry.name)) continue;
      await slices.check();
      await this.watchFolder(path.join(folder, entry.name), depth + 1, slices);
    }
  }

  private handle(folder: string, depth: number, eventType: string, name: string | Buffer | null): void {
    if (this.closed || this.failed) return;
    if (name === null) {
      // The kernel did not say what changed in the folder: the whole folder.
      this.onEvent({ path: folder, kind: "entries" });
      return;
    }
    const changed = path.join(folder, name.toString());
    if (eventType === "change") {
      this.onEvent({ path: changed, kind: "content" });
      return;
    }
    // A name came, went or was renamed over: a folder there is (re)watched with what it holds.
    this.onEvent({ path: changed, kind: "entries" });
    if (SKIPPED_DIRECTORIES.has(name.toString())) return;
    let stat: fs.Stats | null;
    try {
      stat = fs.lstatSync(changed);
    } catch {
      stat = null;
    }
    // Always watched afresh: a folder removed and made again at once may get the very inode number
    // back, and the old watch died with the old folder (dev:ino alone cannot tell them apart).
    this.unwatchTree(changed);
    if (stat?.isDirectory() && depth + 1 <= DEFAULT_WALK_LIMITS.maxDepth) void this.watchFolder(changed, depth + 1, new WorkSlices());
  }
}

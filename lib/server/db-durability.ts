import fs from "node:fs/promises";
import type Database from "better-sqlite3";
import { noteWalSize } from "./db-checkpointer";

/**
 * Group commit for the console's SQLite connection. With `synchronous = FULL` (SQLite's default) every
 * commit fsyncs the WAL inside the statement — synchronously, on the event loop: 0.4 ms at the median
 * and over 1 ms at p90 on this machine's disk, several times per call, and no other request is served
 * meanwhile (issue 9 point 6: the call path's cost; issue 10 point 1: stalls). Instead the connection
 * runs with `synchronous = NORMAL` (in WAL mode: commits are written to the WAL without fsync; still
 * atomic and consistent, durable across a crash of the console; the WAL is fsynced at checkpoints),
 * and the API answers a request that may have written (any method but GET and HEAD) only after
 * `durable()`: an fsync of the WAL run in libuv's thread pool, shared by every answer waiting at that
 * moment. So a client that was told "done" — a call stored, a signature counted, a result kept (issue 10
 * point 3) — finds it after a power loss too, as with FULL, while the event loop never waits for the disk.
 */

interface DurabilityState {
  /** The WAL file to fsync (null: durability is SQLite's own, e.g. a test's connection, or not SQLite). */
  walPath: string | null;
  handle: fs.FileHandle | null;
  /** The fsync in flight. */
  running: Promise<void> | null;
  /** The fsync that starts once the one in flight ends, shared by everyone who asked meanwhile. */
  queued: Promise<void> | null;
  /** The console's connection, whose `total_changes()` tells whether anything was written since an fsync. */
  database: Database.Database | null;
  /** `SELECT total_changes()` prepared once on that connection (read on every answer that may have written). */
  totalChanges: Database.Statement | null;
  /** The connection's total_changes() when the fsync in flight started with no transaction open, else null. */
  runningMark: number | null;
  /** The highest such mark of an fsync that succeeded: every change counted up to it is on disk. */
  syncedMark: number;
}

const STATE_KEY = Symbol.for("skill-console.db-durability");
const state: DurabilityState = ((globalThis as Record<symbol, unknown>)[STATE_KEY] ??= { walPath: null, handle: null, running: null, queued: null, database: null, totalChanges: null, runningMark: null, syncedMark: -1 }) as DurabilityState;

/**
 * Sets the console's connection (`database`, in WAL mode, whose WAL file is `walPath`) to
 * `synchronous = NORMAL` and makes durable() fsync `walPath`. Called once per connection (db.ts).
 */
export function useGroupCommit(database: Database.Database, walPath: string): void {
  database.pragma("synchronous = NORMAL");
  state.database = database;
  state.totalChanges = null;
  // Joined by nobody any more: its mark was counted on the previous connection (startSync).
  state.runningMark = null;
  state.syncedMark = -1;
  if (state.walPath !== walPath) {
    const previous = state.handle;
    state.handle = null;
    void previous?.close().catch(() => undefined);
  }
  state.walPath = walPath;
}

/** Stops fsyncing (the connection was closed, e.g. a test moving to another file). */
export function stopGroupCommit(): void {
  const previous = state.handle;
  state.walPath = null;
  state.handle = null;
  state.database = null;
  state.totalChanges = null;
  state.runningMark = null;
  state.syncedMark = -1;
  void previous?.close().catch(() => undefined);
}

/**
 * The connection's count of rows changed so far (SQLite's total_changes(): every INSERT, UPDATE and
 * DELETE, triggers' too, committed or not), when no transaction is open on it; else null (a change
 * counted inside an open transaction is not in the WAL yet). Never throws: null when it cannot tell.
 */
function changeMark(): number | null {
  const database = state.database;
  if (database === null || !database.open || database.inTransaction) return null;
  try {
    state.totalChanges ??= database.prepare("SELECT total_changes()").pluck();
    return Number(state.totalChanges.get());
  } catch {
    return null;
  }
}

async function syncWal(): Promise<void> {
  const walPath = state.walPath;
  if (walPath === null) return;
  if (state.handle === null) {
    try {
      state.handle = await fs.open(walPath, "r");
    } catch (error) {
      // No WAL yet: nothing was committed through it, so nothing is waiting for the disk.
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
      throw error;
    }
  }
  const handle = state.handle;
  await handle.sync();
  // Its size tells whether the WAL grew past its bound since its last restart (db-checkpointer.ts); not awaited.
  handle.stat().then(
    (stat) => noteWalSize(stat.size),
    () => undefined,
  );
}

function startSync(): Promise<void> {
  const mark = changeMark();
  // A mark counts on the connection it was read from: an fsync that ends after a reconnect (whose new
  // connection counts from 0 again) must not vouch for the new one's changes.
  const database = state.database;
  const sync: Promise<void> = syncWal()
    .then(() => {
      if (mark !== null && state.database === database && mark > state.syncedMark) state.syncedMark = mark;
    })
    .finally(() => {
      if (state.running === sync) {
        state.running = null;
        state.runningMark = null;
      }
    });
  state.running = sync;
  state.runningMark = mark;
  return sync;
}

/**
 * Resolves once every commit made before this call is on disk: joins the next fsync of the WAL that
 * starts after this call (one in flight may have started before the caller's commit, so it is not
 * enough), started at once when none is in flight — unless the connection changed no row since an
 * fsync that started with no transaction open (changeMark): then at once when that one succeeded, or
 * with it while it runs. Resolves at once when group commit is off. Rejects
 * with the fsync's error (EIO: what the caller committed may be lost; the caller must not say "done").
 */
export function durable(): Promise<void> {
  if (state.walPath === null) return Promise.resolve();
  // Nothing changed since an fsync that started after the last change (a search answered by POST, a
  // refused request): nothing to wait for. One in flight that started after it is enough to join.
  const mark = changeMark();
  if (mark !== null && mark <= state.syncedMark) return Promise.resolve();
  if (mark !== null && state.running !== null && state.runningMark !== null && state.runningMark >= mark) return state.running;
  if (state.running === null) return startSync();
  state.queued ??= state.running.then(
    () => {
      state.queued = null;
      return startSync();
    },
    () => {
      state.queued = null;
      return startSync();
    },
  );
  return state.queued;
}

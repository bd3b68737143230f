import { Worker } from "node:worker_threads";
import type Database from "better-sqlite3";
import type { SqliteConnection } from "./serialised-sqlite-adapter";
import { moduleSearchPaths, THREAD_PREAMBLE_SOURCE } from "@/lib/validation/thread-preamble";

/**
 * WAL checkpoints off the event loop. SQLite checkpoints a WAL database automatically inside the commit
 * that takes the WAL past 1,000 pages: that commit copies ~4 MB into the database file and fsyncs it,
 * synchronously, in whatever request made it — 14 ms on a quiet disk, 57 ms under load (issue 10
 * point 1: a worker's 50,000-skill registration stalled the console in one of its INSERTs; issue 9
 * point 6: any call's commit may pay it). Instead the console's connection runs with
 * `wal_autocheckpoint = 0` and a thread with its own connection to the same file runs a PASSIVE
 * checkpoint every CHECKPOINT_INTERVAL_MS: it never waits for a lock (a busy one is tried at the next
 * tick) and never blocks the console's readers or writers; the console's next write restarts the WAL
 * from its start once everything in it was copied. Under writes that never pause, the WAL would
 * never restart: past WAL_RESTART_FRAMES the connection checkpoints once itself (briefly, the thread
 * having copied most frames), and its next write restarts the WAL. Should the thread fail to start or stop,
 * automatic checkpoints come back, so the WAL never grows without bound.
 */

/** ms between two checkpoints of the thread. */
export const CHECKPOINT_INTERVAL_MS = 500;
/**
 * WAL frames (4 KiB pages) past which the console's own connection checkpoints again. SQLite restarts
 * the WAL from its start only when a write begins with every frame copied, which continuous writes
 * never leave to a thread (an attacker's refusal flood grew the WAL to 1.2 GB in 36 s): past this
 * many, the connection checkpoints once itself (checkpointHere; the frames the thread copied already
 * are not copied again, so it is short) and its next write restarts the WAL.
 */
export const WAL_RESTART_FRAMES = 4000;
/** Bytes a restarted WAL file is cut back to (`journal_size_limit`): the file never stays at a flood's size. */
const WAL_KEPT_BYTES = 16 * 1024 * 1024;
/** SQLite's default `wal_autocheckpoint`, in pages, restored when the thread is not running. */
const AUTOCHECKPOINT_PAGES = 1000;
/** Longest wait for the thread's first answer, in ms. */
const START_MS = 10_000;

// Nice 10 and `load` (lib/validation/thread-preamble.ts): copying pages must not take a CPU from the main thread.
const SOURCE = THREAD_PREAMBLE_SOURCE + String.raw`
const Database = load("better-sqlite3");
const database = new Database(workerData.file, { timeout: 0, fileMustExist: true });
database.pragma("synchronous = NORMAL");
let stopped = false;
let timer = null;
let lastLog = 0;
// asked: the id of the "now" request this checkpoint answers (0 for none), echoed in its report.
const tick = (asked = 0) => {
  try {
    const [result] = database.pragma("wal_checkpoint(PASSIVE)");
    // SQLITE_BUSY comes back as a row, not an error: busy 1 with log and checkpointed -1 (another
    // connection was checkpointing or restarting the WAL). Nothing was copied; like a thrown busy.
    if (result.log < 0) {
      if (asked) parentPort.postMessage({ busy: true, asked });
    } else {
      lastLog = result.log;
      parentPort.postMessage({ checkpointed: result.checkpointed, log: result.log, asked });
    }
  } catch (error) {
    // Busy or locked: another connection holds what the checkpoint needs; the next tick tries again.
    if (!/BUSY|LOCKED/.test(String(error && error.code))) parentPort.postMessage({ failure: String(error && error.message), asked });
    else if (asked) parentPort.postMessage({ busy: true, asked });
  }
  // A long WAL is copied again soon: the console's connection restarts it after the next report.
  if (!stopped) timer = setTimeout(tick, lastLog > workerData.restartFrames ? workerData.intervalMs / 10 : workerData.intervalMs);
};
parentPort.on("message", (message) => {
  if (message === "stop") {
    stopped = true;
    clearTimeout(timer);
    database.close();
    parentPort.close();
  } else if (message && typeof message.now === "number") {
    clearTimeout(timer);
    tick(message.now);
  }
});
parentPort.postMessage({ ready: true });
timer = setTimeout(tick, workerData.intervalMs);
`;

/** What the thread reports after each checkpoint: frames in the WAL, and frames copied into the database. */
export interface CheckpointReport {
  log: number;
  checkpointed: number;
}

interface CheckpointerState {
  worker: Worker | null;
  database: Database.Database | null;
  /** The thread opened the file. */
  ready: boolean;
  /** The console's connection (checkpointHere), while the thread runs. */
  connection: SqliteConnection | null;
  /** A checkpoint of the console's connection is waiting for its lock or running. */
  checkpointingHere: boolean;
  /** noteWalSize asked the thread for a checkpoint now, not reported yet. */
  checkpointAsked: boolean;
  /** Called with each checkpoint's report (tests). */
  /** Told of each answer of the thread: the id of the "now" request it answers (0 for none) and its report, or why there is none. */
  listeners: Set<(asked: number, report: CheckpointReport | "busy" | "failed") => void>;
  /** The last id given to a checkpointNow request. */
  lastAsked: number;
}

const STATE_KEY = Symbol.for("skill-console.db-checkpointer");
const state: CheckpointerState = ((globalThis as Record<symbol, unknown>)[STATE_KEY] ??= { worker: null, database: null, ready: false, connection: null, checkpointingHere: false, checkpointAsked: false, listeners: new Set(), lastAsked: 0 }) as CheckpointerState;

function restoreAutocheckpoint(database: Database.Database, reason: string): void {
  console.error(`database: the checkpoint thread ${reason}; SQLite checkpoints the WAL inside commits again`);
  try {
    if (database.open) database.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
  } catch {
    // The connection is closing: nothing to checkpoint for.
  }
}

/**
 * A WAL past WAL_RESTART_FRAMES: the console's connection checkpoints once itself, under its lock
 * (never inside one of its transactions), right after the thread's checkpoint, so it copies only the
 * frames written since — then its next write restarts the WAL from its start. The thread sleeps
 * between its checkpoints, so the two do not collide; when they do (busy), the next report tries again.
 */
async function checkpointHere(connection: SqliteConnection): Promise<void> {
  if (state.checkpointingHere) return;
  state.checkpointingHere = true;
  await connection.lock.acquire();
  try {
    if (connection.database.open) connection.database.pragma("wal_checkpoint(PASSIVE)");
  } catch {
    // Busy or locked: the next report past the bound tries again.
  } finally {
    connection.lock.release();
    state.checkpointingHere = false;
  }
}

/**
 * Told the WAL file's size after each group commit's fsync (db-durability.ts): a file past
 * WAL_KEPT_BYTES has grown since its last restart (a restart cuts it back to that size), whatever
 * the thread's pace, so the thread checkpoints at once, and its report (past WAL_RESTART_FRAMES)
 * has the console's connection copy what was written meanwhile (checkpointHere) — a few frames, not
 * the 16 MiB that copying on the event loop would cost (a 50,000-skill registration stalled 92 ms so)
 * — and its next write restarts the WAL. Bounds the WAL to about WAL_KEPT_BYTES plus what is written
 * during one checkpoint of the thread.
 */
export function noteWalSize(bytes: number): void {
  if (bytes <= WAL_KEPT_BYTES || state.worker === null || !state.ready || state.checkpointAsked) return;
  // The thread copies first (off the event loop); its report then has the connection copy the rest.
  state.checkpointAsked = true;
  state.worker.postMessage({ now: 0 });
}

/**
 * Moves the WAL checkpoints of `connection` (the console's, in WAL mode, on the file `file`)
 * to a thread of their own; stops a checkpointer started for another connection first. Automatic
 * checkpoints are turned off only once the thread has opened the file. Never throws: when the thread
 * cannot run, checkpoints stay SQLite's own (with a message on stderr).
 */
export function startCheckpointer(connection: SqliteConnection, file: string): void {
  stopCheckpointer();
  const database = connection.database;
  let worker: Worker;
  try {
    worker = new Worker(SOURCE, { eval: true, workerData: { file, intervalMs: CHECKPOINT_INTERVAL_MS, restartFrames: WAL_RESTART_FRAMES, searchPaths: moduleSearchPaths() }, stdout: false, stderr: false });
  } catch (error) {
    restoreAutocheckpoint(database, `could not start (${error instanceof Error ? error.message : String(error)})`);
    return;
  }
  worker.unref();
  state.worker = worker;
  state.database = database;
  state.connection = connection;
  state.ready = false;
  state.checkpointAsked = false;
  let ready = false;
  const startTimer = setTimeout(() => {
    if (state.worker === worker && !ready) {
      stopCheckpointer();
      restoreAutocheckpoint(database, `did not start within ${START_MS} ms`);
    }
  }, START_MS);
  startTimer.unref();
  worker.on("message", (message: { ready?: true; failure?: string; busy?: true; asked?: number } & Partial<CheckpointReport>) => {
    if (state.worker !== worker) return;
    if (message.ready) {
      ready = true;
      state.ready = true;
      clearTimeout(startTimer);
      database.pragma(`journal_size_limit = ${WAL_KEPT_BYTES}`);
      database.pragma("wal_autocheckpoint = 0");
    } else if (message.failure !== undefined || message.busy) {
      if (message.failure !== undefined) console.error(`database: a WAL checkpoint failed: ${message.failure}`);
      for (const listener of state.listeners) listener(message.asked ?? 0, message.busy ? "busy" : "failed");
    } else {
      const report = { log: message.log ?? 0, checkpointed: message.checkpointed ?? 0 };
      state.checkpointAsked = false;
      if (report.log > WAL_RESTART_FRAMES) void checkpointHere(connection);
      for (const listener of state.listeners) listener(message.asked ?? 0, report);
    }
  });
  const onDeath = (reason: string) => {
    if (state.worker !== worker) return;
    clearTimeout(startTimer);
    state.worker = null;
    state.database = null;
    state.connection = null;
    state.ready = false;
    restoreAutocheckpoint(database, reason);
  };
  worker.on("error", (error) => onDeath(`failed (${error.message})`));
  worker.on("exit", (code) => onDeath(`exited with code ${code}`));
}

/** Stops the checkpoint thread (the connection is closing, or another replaces it). Its connection's automatic checkpoints are not restored: it is going away. */
export function stopCheckpointer(): void {
  const worker = state.worker;
  state.worker = null;
  state.database = null;
  state.connection = null;
  state.ready = false;
  if (!worker) return;
  worker.removeAllListeners();
  worker.on("error", () => undefined);
  worker.postMessage("stop");
  setTimeout(() => void worker.terminate(), 1000).unref();
}

/**
 * Has the thread checkpoint now and resolves with the report of that very checkpoint — never of one
 * that was already under way or reported (a periodic one, or one a commit asked for), which may predate
 * the caller's writes; a checkpoint refused as busy is asked for again (tests: the WAL is copied
 * without any commit of the console's paying for it). Rejects when no thread runs or it failed.
 */
export function checkpointNow(): Promise<CheckpointReport> {
  const worker = state.worker;
  if (!worker) return Promise.reject(new Error("no checkpoint thread is running"));
  const id = (state.lastAsked = (state.lastAsked ?? 0) + 1);
  return new Promise((resolve, reject) => {
    const listener = (asked: number, report: CheckpointReport | "busy" | "failed") => {
      if (asked !== id) return;
      if (report === "busy") {
        setTimeout(() => (state.worker === worker ? worker.postMessage({ now: id }) : undefined), 10);
        return;
      }
      state.listeners.delete(listener);
      if (report === "failed") reject(new Error("the WAL checkpoint failed (see the console's log)"));
      else resolve(report);
    };
    state.listeners.add(listener);
    worker.postMessage({ now: id });
  });
}

/** True when the thread runs and has opened the file (automatic checkpoints of the console's connection are then off while the WAL is short). */
export function checkpointerRunning(): boolean {
  return state.worker !== null && state.database !== null && state.ready;
}

/** The checkpoint thread, when one runs (tests: terminating it must bring SQLite's own checkpoints back). */
export function checkpointThread(): Worker | null {
  return state.worker;
}

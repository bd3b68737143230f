import { Worker } from "node:worker_threads";
import type Database from "better-sqlite3";
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
 * from its start once everything in it was copied. Should the thread fail to start or stop,
 * automatic checkpoints come back, so the WAL never grows without bound.
 */

/** ms between two checkpoints of the thread. */
export const CHECKPOINT_INTERVAL_MS = 500;
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
const tick = () => {
  try {
    const [result] = database.pragma("wal_checkpoint(PASSIVE)");
    parentPort.postMessage({ checkpointed: result.checkpointed, log: result.log });
  } catch (error) {
    // Busy or locked: another connection holds what the checkpoint needs; the next tick tries again.
    if (!/BUSY|LOCKED/.test(String(error && error.code))) parentPort.postMessage({ failure: String(error && error.message) });
  }
  if (!stopped) timer = setTimeout(tick, workerData.intervalMs);
};
parentPort.on("message", (message) => {
  if (message === "stop") {
    stopped = true;
    clearTimeout(timer);
    database.close();
    parentPort.close();
  } else if (message === "now") {
    clearTimeout(timer);
    tick();
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
  /** Called with each checkpoint's report (tests). */
  listeners: Set<(report: CheckpointReport) => void>;
}

const STATE_KEY = Symbol.for("skill-console.db-checkpointer");
const state: CheckpointerState = ((globalThis as Record<symbol, unknown>)[STATE_KEY] ??= { worker: null, database: null, listeners: new Set() }) as CheckpointerState;

function restoreAutocheckpoint(database: Database.Database, reason: string): void {
  console.error(`database: the checkpoint thread ${reason}; SQLite checkpoints the WAL inside commits again`);
  try {
    if (database.open) database.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
  } catch {
    // The connection is closing: nothing to checkpoint for.
  }
}

/**
 * Moves the WAL checkpoints of `database` (the console's connection, in WAL mode, on the file `file`)
 * to a thread of their own; stops a checkpointer started for another connection first. Automatic
 * checkpoints are turned off only once the thread has opened the file. Never throws: when the thread
 * cannot run, checkpoints stay SQLite's own (with a message on stderr).
 */
export function startCheckpointer(database: Database.Database, file: string): void {
  stopCheckpointer();
  let worker: Worker;
  try {
    worker = new Worker(SOURCE, { eval: true, workerData: { file, intervalMs: CHECKPOINT_INTERVAL_MS, searchPaths: moduleSearchPaths() }, stdout: false, stderr: false });
  } catch (error) {
    restoreAutocheckpoint(database, `could not start (${error instanceof Error ? error.message : String(error)})`);
    return;
  }
  worker.unref();
  state.worker = worker;
  state.database = database;
  let ready = false;
  const startTimer = setTimeout(() => {
    if (state.worker === worker && !ready) {
      stopCheckpointer();
      restoreAutocheckpoint(database, `did not start within ${START_MS} ms`);
    }
  }, START_MS);
  startTimer.unref();
  worker.on("message", (message: { ready?: true; failure?: string } & Partial<CheckpointReport>) => {
    if (state.worker !== worker) return;
    if (message.ready) {
      ready = true;
      clearTimeout(startTimer);
      database.pragma("wal_autocheckpoint = 0");
    } else if (message.failure !== undefined) console.error(`database: a WAL checkpoint failed: ${message.failure}`);
    else for (const listener of state.listeners) listener({ log: message.log ?? 0, checkpointed: message.checkpointed ?? 0 });
  });
  const onDeath = (reason: string) => {
    if (state.worker !== worker) return;
    clearTimeout(startTimer);
    state.worker = null;
    state.database = null;
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
  if (!worker) return;
  worker.removeAllListeners();
  worker.on("error", () => undefined);
  worker.postMessage("stop");
  setTimeout(() => void worker.terminate(), 1000).unref();
}

/**
 * Resolves with the report of the thread's next checkpoint, asking for one at once (tests: the WAL is
 * copied without any commit of the console's paying for it). Rejects when no thread runs.
 */
export function checkpointNow(): Promise<CheckpointReport> {
  const worker = state.worker;
  if (!worker) return Promise.reject(new Error("no checkpoint thread is running"));
  return new Promise((resolve) => {
    const listener = (report: CheckpointReport) => {
      state.listeners.delete(listener);
      resolve(report);
    };
    state.listeners.add(listener);
    worker.postMessage("now");
  });
}

/** True when the thread runs and automatic checkpoints of the console's connection are off. */
export function checkpointerRunning(): boolean {
  return state.worker !== null && state.database !== null && Number(state.database.pragma("wal_autocheckpoint", { simple: true })) === 0;
}

/** The checkpoint thread, when one runs (tests: terminating it must bring SQLite's own checkpoints back). */
export function checkpointThread(): Worker | null {
  return state.worker;
}

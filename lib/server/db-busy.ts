import { setTimeout as delay } from "node:timers/promises";
import { AppError } from "./errors";

/**
 * How long a statement or a transaction's start keeps trying while another process holds the SQLite
 * file's write lock, in ms, before the request answers 503 (issue 10 point 2: no query waits
 * synchronously on a lock; waits are bounded, short, and answered `unavailable` + Retry-After).
 */
export const BUSY_RETRY_BUDGET_MS = 2000;

/** Seconds a client is told to wait before retrying a request the busy database refused. */
export const BUSY_RETRY_AFTER_SECONDS = 1;

/** Waits between tries, in ms: short first (a writer's lock usually lasts a moment), then 50 ms apart. */
const BACKOFF_MS = [1, 2, 5, 10, 20, 50];

/**
 * Whether `error` says the SQLite file is locked by another connection: better-sqlite3's SqliteError
 * `SQLITE_BUSY*` / `SQLITE_LOCKED*`, or Prisma's driver-adapter error wrapping it (its message or
 * cause says `database is locked` / `SQLITE_BUSY`). The connection's busy timeout is 0 (db.ts), so
 * SQLite answers at once instead of sleeping on the event loop.
 */
export function isDatabaseBusy(error: unknown): boolean {
  for (let current = error, depth = 0; current && typeof current === "object" && depth < 5; current = (current as { cause?: unknown }).cause, depth++) {
    const { code, message } = current as { code?: unknown; message?: unknown };
    if (typeof code === "string" && /^SQLITE_(BUSY|LOCKED)/.test(code)) return true;
    // The last: databaseBusyError() itself, thrown by retryWhileBusy inside Prisma's adapter and wrapped by Prisma's client.
    if (typeof message === "string" && /database is locked|database table is locked|SQLITE_BUSY|the database is busy \(another process holds its write lock\)/.test(message)) return true;
  }
  return false;
}

/** The error a request gets when the database stayed busy past BUSY_RETRY_BUDGET_MS: 503 `unavailable`, Retry-After. */
export function databaseBusyError(): AppError {
  return new AppError("unavailable", `the database is busy (another process holds its write lock); retry in ${BUSY_RETRY_AFTER_SECONDS} s`, { retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS });
}

/**
 * Runs `attempt` until it does not fail with a busy database (isDatabaseBusy), waiting between tries
 * without blocking the event loop, for at most `budgetMs`; then throws databaseBusyError(). Any other
 * error is rethrown at once. `attempt` must be safe to run again after a busy failure (a single
 * statement, or a transaction's BEGIN: SQLite applied nothing).
 */
export async function retryWhileBusy<T>(attempt: () => T | Promise<T>, budgetMs: number = BUSY_RETRY_BUDGET_MS): Promise<T> {
  const deadline = performance.now() + budgetMs;
  for (let tries = 0; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      if (!isDatabaseBusy(error)) throw error;
      const wait = BACKOFF_MS[Math.min(tries, BACKOFF_MS.length - 1)]!;
      if (performance.now() + wait > deadline) throw databaseBusyError();
      await delay(wait);
    }
  }
}

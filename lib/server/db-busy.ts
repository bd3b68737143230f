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

/**
 * `error` and what it wraps, at most `depth` links: its `cause`, and the driver adapter's error that
 * Prisma keeps in `meta.driverAdapterError` of a P2010 (a raw query inside a transaction) rather than
 * in `cause` — a serialization failure hid there and was answered 500.
 */
export function* errorChain(error: unknown, depth = 6): Generator<Record<string, unknown>> {
  const queue: unknown[] = [error];
  for (let seen = 0; queue.length > 0 && seen < depth; seen++) {
    const current = queue.shift();
    if (!current || typeof current !== "object") continue;
    const record = current as Record<string, unknown>;
    yield record;
    if (record.cause) queue.push(record.cause);
    const meta = record.meta as { driverAdapterError?: unknown } | undefined;
    if (meta && typeof meta === "object" && meta.driverAdapterError) queue.push(meta.driverAdapterError);
  }
}

/** Socket errors of a database server that is down or unreachable. */
const UNREACHABLE_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN"]);
/**
 * PostgreSQL SQLSTATEs of a server that cannot serve now: admin_shutdown, crash_shutdown,
 * cannot_connect_now (starting or stopping), too_many_connections, lock_not_available (a lock held past
 * the connection's lock_timeout, db.ts); and class 08 (connection exception).
 */
const UNAVAILABLE_STATES = new Set(["57P01", "57P02", "57P03", "53300", "55P03"]);
/** Prisma's codes for the same: cannot reach, timed out, connection closed, no pool connection in time. */
const UNAVAILABLE_PRISMA_CODES = new Set(["P1001", "P1002", "P1008", "P1017", "P2024"]);
/** The driver adapter's error kinds for the same (Prisma rethrows them as they are). */
const UNAVAILABLE_ADAPTER_KINDS = new Set(["DatabaseNotReachable", "ConnectionClosed", "SocketTimeout", "TooManyConnections", "DatabaseUnavailable"]);

/**
 * Whether `error` says the PostgreSQL server cannot serve the request now (issue 11 point 4: while it
 * is down or restarting, requests answer 503 `unavailable`, and resume on their own once it is back):
 * a socket error, a SQLSTATE of UNAVAILABLE_STATES or class 08, pg's pool timeout or lost connection,
 * or Prisma's and its adapter's names for them — also when wrapped (errorChain).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (const current of errorChain(error)) {
    const { code, originalCode, kind, message } = current as { code?: unknown; originalCode?: unknown; kind?: unknown; message?: unknown };
    for (const state of [code, originalCode]) {
      if (typeof state !== "string") continue;
      if (UNREACHABLE_CODES.has(state) || UNAVAILABLE_STATES.has(state) || UNAVAILABLE_PRISMA_CODES.has(state) || /^08[0-9A-Z]{3}$/.test(state)) return true;
    }
    if (typeof kind === "string" && UNAVAILABLE_ADAPTER_KINDS.has(kind)) return true;
    if (typeof message === "string" && /timeout exceeded when trying to connect|Connection terminated|connection error and is not queryable|the database system is (starting up|shutting down)/.test(message)) return true;
  }
  return false;
}

/** The error a request gets while the database server cannot serve it: 503 `unavailable`, Retry-After. */
export function databaseUnavailableError(): AppError {
  return new AppError("unavailable", `the database is unavailable; retry in ${BUSY_RETRY_AFTER_SECONDS} s`, { retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS });
}

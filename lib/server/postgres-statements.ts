import "server-only";
import { createRequire } from "node:module";
import { setTimeout as delay } from "node:timers/promises";
import type { Prisma } from "@prisma/client";
import type pg from "pg";
import { errorChain } from "./db-busy";
import { storableText } from "./postgres-adapter";
import { AppError } from "./errors";

/**
 * The console's hand-written SQL on PostgreSQL (DESIGN.md "Several replicas"): what db-statements.ts
 * runs when DATABASE_URL is postgresql://. Statements take a connection of the pool Prisma's adapter
 * uses (db.ts); rows come back as on SQLite (db-statements.ts SqlRunner): TIMESTAMP columns as Date,
 * booleans as boolean, integers (counts included) as numbers.
 */

/** The pg driver, loaded on first use (an embedded SQLite console never loads it; db.ts). */
let driver: typeof import("pg") | null = null;
function pgDriver(): typeof import("pg") {
  driver ??= createRequire(import.meta.url)("pg") as typeof import("pg");
  return driver;
}

/** PostgreSQL type OIDs decoded other than pg's defaults. */
const OID = { int8: 20, numeric: 1700, timestamp: 1114, timestamptz: 1184 } as const;

/**
 * A TIMESTAMP (without time zone) as pg reads it, `2026-12-03 11:37:35.123`: Prisma stores UTC there,
 * and every connection runs with TimeZone UTC (db.ts), so the text is UTC. pg's default parser would
 * read it in the process's local zone.
 */
function utcTimestamp(text: string): Date {
  return new Date(`${text.replace(" ", "T")}Z`);
}

/** The parsers our statements read rows with (Prisma's adapter brings its own for its queries). */
const rowTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") => {
    if (oid === OID.timestamp) return utcTimestamp;
    if (oid === OID.timestamptz) return (text: string) => new Date(text);
    // count(*) and sums: bigint and numeric, well within a double for what the console counts.
    if (oid === OID.int8 || oid === OID.numeric) return Number;
    return pgDriver().types.getTypeParser(oid, format ?? "text");
  }) as pg.CustomTypesConfig["getTypeParser"],
};

/**
 * A parameter as our statements send it: a Date as UTC ISO text without a zone (a TIMESTAMP column
 * ignores a zone in its input, so `…+01:00` would be stored an hour off), text through storableText;
 * the rest as pg sends it.
 */
function toParameter(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString().slice(0, -1);
  if (typeof value === "string") return storableText(value);
  if (value === undefined) throw new TypeError("undefined is not a SQL value (use null)");
  return value;
}

/** Something that runs one query: the pool (any free connection) or one checked-out connection. */
type Queryable = Pick<pg.Pool, "query"> | Pick<pg.PoolClient, "query">;

/** Runs `sql` on `on` and returns pg's result (rows decoded by rowTypes). */
function run(on: Queryable, sql: Prisma.Sql): Promise<pg.QueryResult<Record<string, unknown>>> {
  return on.query({ text: sql.text, values: sql.values.map(toParameter), types: rowTypes });
}

/** Runs one statement; returns its rows ([] for one that returns none). Rejects with pg's DatabaseError. */
export async function postgresQuery(on: Queryable, sql: Prisma.Sql): Promise<Array<Record<string, unknown>>> {
  return (await run(on, sql)).rows;
}

/** Runs one statement; returns how many rows it changed (or returned, for a SELECT). Rejects with pg's DatabaseError. */
export async function postgresExecute(on: Queryable, sql: Prisma.Sql): Promise<number> {
  const result = await run(on, sql);
  return result.rowCount ?? result.rows.length;
}

/**
 * SQLSTATEs after which a transaction is run again from the start: serialization_failure (40001,
 * SERIALIZABLE found the transaction could not be ordered with another) and deadlock_detected (40P01).
 * PostgreSQL applied nothing of it.
 */
const RETRIED_STATES = new Set(["40001", "40P01"]);

/** Most attempts of one transaction before it fails 503 (each waits a little longer, jittered). */
const TRANSACTION_ATTEMPTS = 12;

/**
 * Whether `error` is one that RETRIED_STATES says to run the transaction again after: pg's error
 * (`code`), Prisma's P2034, or the driver adapter's error Prisma rethrows as it is when the conflict
 * surfaces at COMMIT (`cause.kind` TransactionWriteConflict, `cause.originalCode` 40001), or inside
 * Prisma's P2010 of a raw query (`meta.driverAdapterError`): errorChain.
 */
export function isSerializationFailure(error: unknown): boolean {
  for (const current of errorChain(error)) {
    const { code, originalCode, kind } = current as { code?: unknown; originalCode?: unknown; kind?: unknown };
    if (typeof code === "string" && (RETRIED_STATES.has(code) || code === "P2034")) return true;
    if (typeof originalCode === "string" && RETRIED_STATES.has(originalCode)) return true;
    if (kind === "TransactionWriteConflict") return true;
  }
  return false;
}

/** The count of retries, on globalThis (one per process, shared by the route bundles). */
function retryCounter(): { retries: number } {
  const key = Symbol.for("skill-console.transaction-retries");
  return ((globalThis as Record<symbol, { retries: number } | undefined>)[key] ??= { retries: 0 });
}

/** How many times this process ran a transaction again after a serialization failure or deadlock (retrySerializable) since it started: for diagnostics and tests. */
export function transactionRetries(): number {
  return retryCounter().retries;
}

/**
 * Runs `attempt` until it does not fail with a serialization failure or deadlock
 * (isSerializationFailure), at most TRANSACTION_ATTEMPTS times, waiting a few jittered ms between
 * tries; then throws AppError `unavailable` (503). Any other error is rethrown at once. `attempt`
 * must be a whole transaction (PostgreSQL rolled the failed one back).
 */
export async function retrySerializable<T>(attempt: () => Promise<T>): Promise<T> {
  const counter = retryCounter();
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      if (!isSerializationFailure(error)) throw error;
      if (tries >= TRANSACTION_ATTEMPTS) {
        throw new AppError("unavailable", `the database could not order this change with concurrent ones after ${TRANSACTION_ATTEMPTS} attempts; retry in 1 s`, { retryAfterSeconds: 1 });
      }
      counter.retries += 1;
      await delay(Math.random() * Math.min(50, 2 ** tries));
    }
  }
}

/** What a transaction's work gets: statements on its one connection. */
export interface PostgresTransaction {
  query(sql: Prisma.Sql): Promise<Array<Record<string, unknown>>>;
  execute(sql: Prisma.Sql): Promise<number>;
}

/**
 * A transaction's isolation level on PostgreSQL. `serializable` (the default) keeps what SQLite's single
 * writer gives. `read committed` is for a transaction whose every read-then-write is of rows it has
 * already locked by writing them (a compare-and-set UPDATE first): then no other transaction can change
 * what it read before it commits, and it takes no predicate locks — under SERIALIZABLE, the finish
 * reports of different calls cancelled each other through the few index pages of Call they all read
 * (~8 attempts per finish at 16 clients; SSI locks index reads per page).
 */
export type PostgresIsolation = "serializable" | "read committed";

/**
 * Runs `work` in one SERIALIZABLE transaction on a connection of `pool`: PostgreSQL then guarantees
 * what SQLite's single writer did (every transaction as if alone, so a read-then-write such as the
 * stderr budget's cannot interleave with another), and reports a conflict as 40001, after which the
 * whole transaction runs again (retrySerializable). With `isolation` "read committed" (PostgresIsolation
 * says when that keeps the same guarantees) it runs at that level, and again after a deadlock.
 * Commits when `work` resolves and returns its value; rolls back and rethrows when it throws. `work`
 * may run more than once: it must only touch the database through its argument.
 */
export async function postgresTransaction<T>(pool: pg.Pool, work: (tx: PostgresTransaction) => Promise<T>, isolation: PostgresIsolation = "serializable"): Promise<T> {
  return retrySerializable(async () => {
    const client = await pool.connect();
    let open = true;
    let broken: unknown = null;
    const guarded = <R>(statement: () => Promise<R>): Promise<R> => {
      if (!open) return Promise.reject(new Error("statement on a transaction that has ended"));
      return statement();
    };
    const tx: PostgresTransaction = {
      query: (sql) => guarded(() => postgresQuery(client, sql)),
      execute: (sql) => guarded(() => postgresExecute(client, sql)),
    };
    try {
      await client.query(isolation === "read committed" ? "BEGIN ISOLATION LEVEL READ COMMITTED" : "BEGIN ISOLATION LEVEL SERIALIZABLE").catch((failed: unknown) => {
        broken = failed;
        throw failed;
      });
      let result: T;
      try {
        result = await work(tx);
      } catch (error) {
        open = false;
        await client.query("ROLLBACK").catch((rollbackFailed: unknown) => (broken = rollbackFailed));
        throw error;
      }
      open = false;
      try {
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK").catch((rollbackFailed: unknown) => (broken = rollbackFailed));
        throw error;
      }
      return result;
    } finally {
      open = false;
      // A connection whose ROLLBACK failed (the server went away) is dropped, not handed to the next request.
      client.release(broken ? (broken as Error) : undefined);
    }
  });
}

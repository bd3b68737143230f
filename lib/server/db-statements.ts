import "server-only";
import { Prisma } from "@prisma/client";
import type Database from "better-sqlite3";
import { databaseProvider, openSqliteConnection, postgresPool, sqliteConnection } from "./db";
import { errorChain, isDatabaseBusy, retryWhileBusy } from "./db-busy";
import { postgresExecute, postgresQuery, postgresTransaction, type PostgresIsolation } from "./postgres-statements";
import type { SqliteConnection } from "./serialised-sqlite-adapter";

/**
 * What runs the console's hand-written SQL: Prisma's client or interactive transaction
 * (`db()`, `tx`), or this module's statements() and statementTransaction()'s `tx`. Both take a
 * tagged template or a `Prisma.Sql` (values always as parameters) and answer the same way: rows as
 * objects with DATETIME columns as Date, BOOLEAN columns as boolean and integers as numbers.
 */
export interface SqlRunner {
  $queryRaw<T = unknown>(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]): Promise<T>;
  $executeRaw(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]): Promise<number>;
}

/** How one column of a statement's rows is decoded. */
type ColumnKind = "date" | "boolean";

interface Prepared {
  statement: Database.Statement;
  reader: boolean;
  /** Columns that need decoding (by declared type), by name. */
  decode: Array<[string, ColumnKind]>;
}

/** Most prepared statements kept per connection (the call path has a few dozen distinct ones). */
const MAX_PREPARED = 512;
const preparedBy = new WeakMap<Database.Database, Map<string, Prepared>>();

function prepare(database: Database.Database, sql: string): Prepared {
  let cache = preparedBy.get(database);
  if (!cache) {
    cache = new Map();
    preparedBy.set(database, cache);
  }
  const cached = cache.get(sql);
  if (cached) return cached;
  const statement = database.prepare(sql);
  // Prisma's adapter turns on safe integers for the connection; our columns are 32-bit Ints.
  statement.safeIntegers(false);
  const decode: Array<[string, ColumnKind]> = [];
  if (statement.reader) {
    for (const column of statement.columns()) {
      const type = column.type?.toUpperCase();
      if (type === "DATETIME") decode.push([column.name, "date"]);
      else if (type === "BOOLEAN") decode.push([column.name, "boolean"]);
    }
  }
  const prepared = { statement, reader: statement.reader, decode };
  // Statements built from a variable number of rows (multi-row inserts) are many; forget them all at
  // the bound rather than grow without one.
  if (cache.size >= MAX_PREPARED) cache.clear();
  cache.set(sql, prepared);
  return prepared;
}

/**
 * A parameter as Prisma's better-sqlite3 adapter stores it (so model queries read our rows as their
 * own): Date → ISO text with `+00:00`, boolean → 1/0; strings, numbers, bigints, buffers and null as they are.
 */
function toParameter(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString().replace("Z", "+00:00");
  if (typeof value === "boolean") return value ? 1 : 0;
  if (value === undefined) throw new TypeError("undefined is not a SQL value (use null)");
  return value;
}

/** A stored DATETIME: ISO text (Prisma's), SQLite's `YYYY-MM-DD HH:MM:SS` (UTC, CURRENT_TIMESTAMP), or epoch ms. */
function toDate(value: unknown): Date | null {
  if (value === null || value === undefined) return null;
  if (typeof value === "number") return new Date(value);
  const text = String(value);
  // SQLite's own timestamps carry no zone and are UTC.
  return new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(text) ? text : `${text.replace(" ", "T")}Z`);
}

function decodeRows(rows: Array<Record<string, unknown>>, decode: Prepared["decode"]): Array<Record<string, unknown>> {
  if (decode.length === 0) return rows;
  for (const row of rows) {
    for (const [name, kind] of decode) {
      const value = row[name];
      if (value === null || value === undefined) continue;
      row[name] = kind === "date" ? toDate(value) : value === 1 || value === true || value === "1" || value === "true";
    }
  }
  return rows;
}

function toSql(query: TemplateStringsArray | Prisma.Sql, values: unknown[]): Prisma.Sql {
  // A tagged template's strings are an array; a Prisma.Sql is an object (its class is not exported).
  return Array.isArray(query) ? Prisma.sql(query as TemplateStringsArray, ...values) : (query as Prisma.Sql);
}

/** Runs one statement on `database` now (the caller holds the connection's lock). Returns its rows, or [] for a statement without any. */
function queryNow(database: Database.Database, sql: Prisma.Sql): Array<Record<string, unknown>> {
  const prepared = prepare(database, sql.sql);
  const parameters = sql.values.map(toParameter);
  if (!prepared.reader) {
    prepared.statement.run(...parameters);
    return [];
  }
  return decodeRows(prepared.statement.all(...parameters) as Array<Record<string, unknown>>, prepared.decode);
}

/** Runs one statement on `database` now (the caller holds the lock). Returns the number of rows changed. */
function executeNow(database: Database.Database, sql: Prisma.Sql): number {
  const prepared = prepare(database, sql.sql);
  const parameters = sql.values.map(toParameter);
  if (prepared.reader) return prepared.statement.all(...parameters).length;
  return prepared.statement.run(...parameters).changes;
}

/**
 * Runs `work` under the connection's lock: at once when it is free (no await), else after the holders
 * before it. A statement the database refuses as busy (another process holds the file's write lock) is
 * tried again with the lock released meanwhile, for a bounded time, then fails 503 (retryWhileBusy).
 */
function underLock<T>(work: (database: Database.Database) => T): Promise<T> {
  return underLockOnce(work).catch((error: unknown) => (isDatabaseBusy(error) ? retryWhileBusy(() => underLockOnce(work)) : Promise.reject(error)));
}

async function underLockOnce<T>(work: (database: Database.Database) => T): Promise<T> {
  const open = openSqliteConnection();
  const connection: SqliteConnection = open ?? (await sqliteConnection());
  if (connection.lock.tryAcquire()) {
    try {
      return work(connection.database);
    } finally {
      connection.lock.release();
    }
  }
  await connection.lock.acquire();
  try {
    return work(connection.database);
  } finally {
    connection.lock.release();
  }
}

const direct: SqlRunner = {
  $queryRaw: <T>(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]) => {
    const sql = toSql(query, values);
    return underLock((database) => queryNow(database, sql) as T);
  },
  $executeRaw: (query, ...values) => {
    const sql = toSql(query, values);
    return underLock((database) => executeNow(database, sql));
  },
};

const onPostgres: SqlRunner = {
  $queryRaw: <T>(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]) => postgresQuery(postgresPool(), toSql(query, values)) as Promise<T>,
  $executeRaw: (query, ...values) => postgresExecute(postgresPool(), toSql(query, values)),
};

/**
 * The console's SQL statements run straight on Prisma's SQLite connection (issue 9 point 6: the call
 * path close to a bare spawn). A statement through Prisma's client costs 0.5–1.5 ms of CPU (its request
 * pipeline and query engine); the same prepared statement here ~0.03 ms. The connection's lock is the
 * one Prisma's statements take (serialised-sqlite-adapter.ts), so a statement never lands inside an
 * interactive transaction another request has open. On PostgreSQL each statement takes a connection
 * of the pool Prisma's adapter uses (postgres-statements.ts). Returns the runner; a unique violation
 * is isUniqueViolation on both.
 */
export function statements(): SqlRunner {
  return databaseProvider() === "postgresql" ? onPostgres : direct;
}

/**
 * Whether `error` is a unique-constraint violation: Prisma's P2002, better-sqlite3's
 * SQLITE_CONSTRAINT_UNIQUE / _PRIMARYKEY, or PostgreSQL's unique_violation (SQLSTATE 23505), also
 * when wrapped (errorChain).
 */
export function isUniqueViolation(error: unknown): boolean {
  for (const current of errorChain(error)) {
    const { code, message } = current as { code?: unknown; message?: unknown };
    if (code === "P2002" || code === "23505" || code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY") return true;
    // Prisma's raw-query error (P2010) carries the driver's message.
    if (typeof message === "string" && /UNIQUE constraint failed|duplicate key value violates unique constraint/.test(message)) return true;
  }
  return false;
}

/**
 * Runs `work` in one transaction on the connection (BEGIN IMMEDIATE: it takes SQLite's write lock
 * first, so it never fails upgrading a read to a write when another process wrote meanwhile; another
 * process holding the lock is waited for asynchronously, for at most BUSY_RETRY_BUDGET_MS, then it
 * throws AppError `unavailable` (503)). `work` must run every statement
 * through its `tx` — the connection is its alone until it returns (statements() and Prisma's client
 * wait). Commits when `work` resolves and returns its value; rolls back and rethrows when it throws.
 * On PostgreSQL the transaction is SERIALIZABLE (or `options.postgresIsolation`: PostgresIsolation says
 * when READ COMMITTED keeps the same guarantees) and runs again on a conflict (postgresTransaction),
 * so `work` may run more than once and must touch nothing but the database through `tx`.
 */
export async function statementTransaction<T>(work: (tx: SqlRunner) => Promise<T>, options: { postgresIsolation?: PostgresIsolation } = {}): Promise<T> {
  if (databaseProvider() === "postgresql") {
    return postgresTransaction(postgresPool(), (transaction) =>
      work({
        $queryRaw: <R>(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]) => transaction.query(toSql(query, values)) as Promise<R>,
        $executeRaw: (query, ...values) => transaction.execute(toSql(query, values)),
      }),
      options.postgresIsolation,
    );
  }
  const connection = openSqliteConnection() ?? (await sqliteConnection());
  const { database } = connection;
  // BEGIN IMMEDIATE takes the file's write lock; while another process holds it, wait (the
  // connection's own lock released, so reads go on) and try again, for a bounded time, then 503.
  await retryWhileBusy(async () => {
    await connection.lock.acquire();
    try {
      prepare(database, "BEGIN IMMEDIATE").statement.run();
    } catch (error) {
      connection.lock.release();
      throw error;
    }
  });
  let open = true;
  const tx: SqlRunner = {
    $queryRaw: async <R>(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]) => {
      if (!open) throw new Error("statement on a transaction that has ended");
      return queryNow(database, toSql(query, values)) as R;
    },
    $executeRaw: async (query, ...values) => {
      if (!open) throw new Error("statement on a transaction that has ended");
      return executeNow(database, toSql(query, values));
    },
  };
  try {
    let result: T;
    try {
      result = await work(tx);
    } catch (error) {
      open = false;
      if (database.inTransaction) prepare(database, "ROLLBACK").statement.run();
      throw error;
    }
    open = false;
    try {
      prepare(database, "COMMIT").statement.run();
    } catch (error) {
      if (database.inTransaction) prepare(database, "ROLLBACK").statement.run();
      throw error;
    }
    return result;
  } finally {
    open = false;
    connection.lock.release();
  }
}

/**
 * Runs one read on the open connection at once, synchronously, without waiting for its lock: only for
 * rows nobody changes once written (CallPayload parts, read when an answer is serialised). SQLite
 * serialises the connection's statements itself, and a read inside another request's open
 * transaction sees that transaction's writes, which never touch these rows. Returns the rows; throws
 * when no connection is open (the row that names the payload was read through it, so one is).
 */
export function readNowUnlocked(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]): Array<Record<string, unknown>> {
  const connection = openSqliteConnection();
  if (!connection) throw new Error("no open database connection to read from");
  return queryNow(connection.database, toSql(query, values));
}

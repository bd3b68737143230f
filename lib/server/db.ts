import "server-only";
import { createRequire } from "node:module";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaClient } from "@prisma/client";
import Database from "better-sqlite3";
import type pg from "pg";
import { isPostgresUrl, sqlitePathOf } from "./database-url";
import { ConsolePostgresAdapter } from "./postgres-adapter";
import { startCheckpointer, stopCheckpointer } from "./db-checkpointer";
import { stopGroupCommit, useGroupCommit } from "./db-durability";
import { serialisedFactory, type SqliteConnection } from "./serialised-sqlite-adapter";
import { config } from "./env";

const DB_KEY = Symbol.for("skill-console.db");
type DbHolder = {
  client: PrismaClient;
  ready: Promise<void>;
  url: string;
  /** Prisma's SQLite connection, once open: the console's own statements run on it (db-statements.ts). */
  connection: SqliteConnection | null;
  /** On PostgreSQL, the pool Prisma's adapter and the console's own statements share; null on SQLite. */
  pool: pg.Pool | null;
};
const holder = globalThis as unknown as { [DB_KEY]?: DbHolder };

/**
 * How long one SQLite statement waits, synchronously, for another connection's lock: 0. better-sqlite3
 * waits inside the statement, on the event loop, so any wait stalls every request (issue 10 point 2: a
 * 10 s busy timeout timed out 180 of 259 requests of 200 clients). A busy statement fails at once and
 * is retried asynchronously for a bounded time (db-busy.ts retryWhileBusy), then answered 503.
 */
const BUSY_TIMEOUT_MS = 0;
/** The start-up connection that sets WAL mode may wait this long (ms): nothing is served yet. */
const SETUP_BUSY_TIMEOUT_MS = 10_000;

/**
 * Loads the PostgreSQL pieces only when a postgresql:// URL asks for them: the pg driver, the adapter
 * and the client generated from prisma/postgresql/schema.prisma (scripts/prisma-generate.mjs) cost
 * ~100 ms to load, and an embedded SQLite console never needs them. Resolved at run time from node_modules.
 */
const requireAtRunTime = createRequire(import.meta.url);

/** Longest a PostgreSQL statement waits for a row or table lock, in ms (then it fails, answered 503). */
const LOCK_TIMEOUT_MS = 5_000;
/** Longest a PostgreSQL session may sit idle inside an open transaction, in ms (TRANSACTION_OPTIONS' timeout is 20 s). */
const IDLE_IN_TRANSACTION_TIMEOUT_MS = 60_000;

/** How long taking a pool connection may wait (ms) before the request fails 503: a database that is down answers at once, one that is full within this. */
const POOL_CONNECT_TIMEOUT_MS = 5_000;

/**
 * The settings of every PostgreSQL session the console opens: TIMESTAMP columns hold UTC (Prisma's
 * convention), so CURRENT_TIMESTAMP defaults must be UTC too, whatever the server's zone; a statement
 * waits at most LOCK_TIMEOUT_MS for a lock (then 503: db-busy.ts), and a transaction left open and
 * idle is ended by the server: a session holding a lock must not hold every request.
 */
const SESSION_OPTIONS = `-c TimeZone=UTC -c lock_timeout=${LOCK_TIMEOUT_MS} -c idle_in_transaction_session_timeout=${IDLE_IN_TRANSACTION_TIMEOUT_MS}`;

function openPostgres(url: string): DbHolder {
  const { Pool } = requireAtRunTime("pg") as typeof import("pg");
  const { PrismaClient: PostgresPrismaClient } = requireAtRunTime("@skill-console/prisma-postgresql") as { PrismaClient: new (options: { adapter: unknown }) => unknown };
  const pool = new Pool({
    connectionString: url,
    max: Math.max(2, config().databasePoolSize),
    connectionTimeoutMillis: POOL_CONNECT_TIMEOUT_MS,
    idleTimeoutMillis: 30_000,
    options: SESSION_OPTIONS,
  });
  // An idle connection the server dropped (a restart) is reported here; the pool replaces it on the next request.
  pool.on("error", (error) => console.error(`database: an idle PostgreSQL connection failed: ${error.message}`));
  // pg emits 'error' on a client that is checked out but between statements (inside a transaction,
  // say) when the server ends its session (57P01 on a restart), and the pool listens only on idle
  // ones: with no listener the process died of an unhandled 'error' event (a replica crashed on
  // every PostgreSQL restart under load). The statement in flight or the next one fails on its own,
  // and the pool destroys a client released after an error.
  pool.on("connect", (client) => client.on("error", (error) => console.error(`database: a PostgreSQL connection in use failed: ${error.message}`)));
  // The same models on both providers (scripts/postgres-schema.mjs), so the SQLite client's types describe it.
  const client = new PostgresPrismaClient({ adapter: new ConsolePostgresAdapter(pool) }) as PrismaClient;
  return { client, ready: client.$connect(), url, connection: null, pool };
}

function open(url: string): DbHolder {
  if (isPostgresUrl(url)) return openPostgres(url);
  // WAL lets the event stream read while the executor writes, and lets two consoles share one file.
  // The journal mode is stored in the file, so it is set once, before Prisma opens its connection.
  const setup = new Database(sqlitePathOf(url), { timeout: SETUP_BUSY_TIMEOUT_MS });
  try {
    setup.pragma("journal_mode = WAL");
  } finally {
    setup.close();
  }
  // Serialised: an open interactive transaction owns the one connection (serialised-sqlite-adapter.ts).
  const opened: DbHolder = { client: null as unknown as PrismaClient, ready: Promise.resolve(), url, connection: null, pool: null };
  const adapter = serialisedFactory(new PrismaBetterSQLite3({ url, timeout: BUSY_TIMEOUT_MS }), (connection) => {
    // Commits skip their fsync; answers wait for a shared one off the event loop (db-durability.ts).
    useGroupCommit(connection.database, `${sqlitePathOf(url)}-wal`);
    // Checkpoints run in a thread of their own, never inside a request's commit (db-checkpointer.ts).
    startCheckpointer(connection, sqlitePathOf(url));
    opened.connection = connection;
  });
  opened.client = new PrismaClient({ adapter });
  opened.ready = opened.client.$connect();
  return opened;
}

/**
 * The one PrismaClient of the process (STYLE.md: only db.ts creates it), opened on config().databaseUrl:
 * a SQLite file through the better-sqlite3 driver adapter (DESIGN.md machine facts), or a postgresql://
 * database through the pg driver adapter (DESIGN.md "Several replicas"). Kept on globalThis so every
 * Next.js route bundle shares it. Await `dbReady()` once before the first query.
 */
export function db(): PrismaClient {
  const url = config().databaseUrl;
  let current = holder[DB_KEY];
  if (!current || current.url !== url) {
    current = open(url);
    holder[DB_KEY] = current;
  }
  return current.client;
}

/** Resolves once the connection is configured (WAL journal). Rejects when the database cannot be opened. */
export async function dbReady(): Promise<void> {
  db();
  await holder[DB_KEY]!.ready;
}

/**
 * The SQLite connection Prisma opened (its better-sqlite3 handle and the lock every statement on it
 * takes), for db-statements.ts. Connects first when needed. Rejects when the database cannot be opened.
 */
export async function sqliteConnection(): Promise<SqliteConnection> {
  const current = holder[DB_KEY];
  if (current?.connection && current.url === config().databaseUrl) return current.connection;
  await dbReady();
  const connection = holder[DB_KEY]!.connection;
  if (!connection) throw new Error("the database client connected without telling db.ts its connection");
  return connection;
}

/** Which engine config().databaseUrl names: "postgresql" for a postgresql:// URL, else "sqlite". */
export function databaseProvider(): "sqlite" | "postgresql" {
  return isPostgresUrl(config().databaseUrl) ? "postgresql" : "sqlite";
}

/**
 * The PostgreSQL pool Prisma's adapter uses, for db-statements.ts (opens the client first when
 * needed). Throws Error when the database is SQLite.
 */
export function postgresPool(): pg.Pool {
  db();
  const pool = holder[DB_KEY]!.pool;
  if (!pool) throw new Error("the database is SQLite: there is no PostgreSQL pool");
  return pool;
}

/**
 * A PostgreSQL session of its own, outside the pool, on config().databaseUrl with the pool's settings
 * (not yet connected; the caller connects and ends it): the replicas' LISTEN session
 * (replica-bus.ts), which must stay open and must never be handed to a request. TCP keepalive is on,
 * so a server that vanished is noticed; `applicationName` names it in pg_stat_activity (an operator
 * tells the console's LISTEN sessions from its pool's). Throws Error when the database is SQLite.
 */
export function newPostgresSession(applicationName: string): pg.Client {
  const url = config().databaseUrl;
  if (!isPostgresUrl(url)) throw new Error("the database is SQLite: there are no PostgreSQL sessions");
  const { Client } = requireAtRunTime("pg") as typeof import("pg");
  return new Client({
    connectionString: url,
    connectionTimeoutMillis: POOL_CONNECT_TIMEOUT_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    options: SESSION_OPTIONS,
    application_name: applicationName,
  });
}

/** The open SQLite connection when there is one (no waiting), else null: the statements' fast path. */
export function openSqliteConnection(): SqliteConnection | null {
  const current = holder[DB_KEY];
  return current?.connection && current.url === config().databaseUrl ? current.connection : null;
}

/** Closes the client (and a PostgreSQL pool) so a test can point the console at another database. */
export async function closeDbForTests(): Promise<void> {
  const current = holder[DB_KEY];
  holder[DB_KEY] = undefined;
  // The replicas' LISTEN session is on this database too (replica-bus.ts imports this module).
  await (await import("./replica-bus")).stopReplicaBus();
  stopGroupCommit();
  stopCheckpointer();
  if (current) await current.client.$disconnect();
  if (current?.pool && !current.pool.ended) await current.pool.end();
}

import "server-only";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaClient } from "@prisma/client";
import Database from "better-sqlite3";
import { sqlitePathOf } from "./database-url";
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

function open(url: string): DbHolder {
  // WAL lets the event stream read while the executor writes, and lets two consoles share one file.
  // The journal mode is stored in the file, so it is set once, before Prisma opens its connection.
  const setup = new Database(sqlitePathOf(url), { timeout: SETUP_BUSY_TIMEOUT_MS });
  try {
    setup.pragma("journal_mode = WAL");
  } finally {
    setup.close();
  }
  // Serialised: an open interactive transaction owns the one connection (serialised-sqlite-adapter.ts).
  const opened: DbHolder = { client: null as unknown as PrismaClient, ready: Promise.resolve(), url, connection: null };
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
 * The one PrismaClient of the process (STYLE.md: only db.ts creates it), opened on config().databaseUrl
 * through the better-sqlite3 driver adapter (DESIGN.md machine facts). Kept on globalThis so every
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

/** The open SQLite connection when there is one (no waiting), else null: the statements' fast path. */
export function openSqliteConnection(): SqliteConnection | null {
  const current = holder[DB_KEY];
  return current?.connection && current.url === config().databaseUrl ? current.connection : null;
}

/** Closes the client so a test can point the console at another database file. */
export async function closeDbForTests(): Promise<void> {
  const current = holder[DB_KEY];
  holder[DB_KEY] = undefined;
  stopGroupCommit();
  stopCheckpointer();
  if (current) await current.client.$disconnect();
}

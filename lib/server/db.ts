import "server-only";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaClient } from "@prisma/client";
import Database from "better-sqlite3";
import { sqlitePathOf } from "./database-url";
import { serialisedFactory } from "./serialised-sqlite-adapter";
import { config } from "./env";

const DB_KEY = Symbol.for("skill-console.db");
type DbHolder = { client: PrismaClient; ready: Promise<void>; url: string };
const holder = globalThis as unknown as { [DB_KEY]?: DbHolder };

/** How long a SQLite writer waits for another connection's lock before failing, in ms. */
const BUSY_TIMEOUT_MS = 10_000;

function open(url: string): DbHolder {
  // WAL lets the event stream read while the executor writes, and lets two consoles share one file.
  // The journal mode is stored in the file, so it is set once, before Prisma opens its connection.
  const setup = new Database(sqlitePathOf(url), { timeout: BUSY_TIMEOUT_MS });
  try {
    setup.pragma("journal_mode = WAL");
  } finally {
    setup.close();
  }
  // Serialised: an open interactive transaction owns the one connection (serialised-sqlite-adapter.ts).
  const adapter = serialisedFactory(new PrismaBetterSQLite3({ url, timeout: BUSY_TIMEOUT_MS }));
  const client = new PrismaClient({ adapter });
  return { client, ready: client.$connect(), url };
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

/** Closes the client so a test can point the console at another database file. */
export async function closeDbForTests(): Promise<void> {
  const current = holder[DB_KEY];
  holder[DB_KEY] = undefined;
  if (current) await current.client.$disconnect();
}

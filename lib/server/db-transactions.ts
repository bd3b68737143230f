import type { Prisma } from "@prisma/client";
import { databaseProvider, db } from "./db";
import { retrySerializable } from "./postgres-statements";

/**
 * Options of the approval verbs' interactive transactions. Each transaction opens with its
 * compare-and-set write, so on SQLite it takes the write lock first (no read-then-upgrade that could
 * fail with SQLITE_BUSY_SNAPSHOT when another process wrote meanwhile; the serialised adapter takes
 * the write lock at BEGIN, waiting asynchronously for at most 2 s, db-busy.ts), hence waits longer
 * than Prisma's 2 s / 5 s defaults.
 * Within the process an open transaction owns the connection (lib/server/serialised-sqlite-adapter.ts),
 * so callbacks must use their `tx`, never db(), which would wait for the transaction itself.
 */
export const TRANSACTION_OPTIONS = { maxWait: 15_000, timeout: 20_000 } as const;

/**
 * Runs `work` in one of Prisma's interactive transactions (TRANSACTION_OPTIONS) and returns its value.
 * On SQLite the transaction holds the database's one writer. On PostgreSQL it is SERIALIZABLE, so it
 * keeps that guarantee — READ COMMITTED let two admins demoting each other at once, each counting the
 * other still admin, leave none — and a serialization failure (P2034) runs it again from the start
 * (retrySerializable, at most a dozen times, then 503). `work` may therefore run more than once: it
 * must touch nothing but the database through its `tx`. Rethrows what `work` throws, after the rollback.
 */
export function modelTransaction<T>(work: (tx: Prisma.TransactionClient) => Promise<T>): Promise<T> {
  if (databaseProvider() !== "postgresql") return db().$transaction(work, TRANSACTION_OPTIONS);
  return retrySerializable(() => db().$transaction(work, { ...TRANSACTION_OPTIONS, isolationLevel: "Serializable" }));
}

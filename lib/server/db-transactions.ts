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

import type { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import type Database from "better-sqlite3";
import { isDatabaseBusy, retryWhileBusy } from "./db-busy";

type Adapter = Awaited<ReturnType<PrismaBetterSQLite3["connect"]>>;
type Transaction = Awaited<ReturnType<Adapter["startTransaction"]>>;

/**
 * The lock of one SQLite connection: FIFO, handed straight to the next waiter on release. Prisma's
 * statements (through serialiseAdapter) and the console's own (db-statements.ts) take the same lock,
 * so neither runs inside the other's open transaction.
 */
export class ConnectionLock {
  private held = false;
  private readonly waiters: Array<() => void> = [];

  /** Takes the lock now if nobody holds it; true when taken (release it), false when held. */
  tryAcquire(): boolean {
    if (this.held) return false;
    this.held = true;
    return true;
  }

  /** Resolves once the lock is this caller's (after every earlier caller released it). */
  acquire(): Promise<void> {
    if (this.tryAcquire()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Releases the lock to the next waiter, or frees it. */
  release(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.held = false;
  }
}

/** The better-sqlite3 connection under a Prisma adapter, with the lock every statement on it takes. */
export interface SqliteConnection {
  database: Database.Database;
  lock: ConnectionLock;
}

/** A write that changes nothing but takes SQLite's write lock for the transaction it runs in (every migrated database has the table). */
const WRITE_LOCK_PROBE = `UPDATE "_prisma_migrations" SET "id" = "id" WHERE 0`;

/**
 * Wraps one better-sqlite3 driver adapter so that an open interactive transaction owns the connection.
 * Prisma's adapter holds a mutex only between transactions: a query from another request runs on the
 * same connection while a transaction is open, so it silently joins that transaction — a rollback
 * undoes it (a timeline line, a lease renewal, a call's end state) and it reads uncommitted rows.
 * Here every statement outside a transaction waits for the transaction to commit or roll back, and
 * transactions wait for each other. better-sqlite3 runs statements synchronously anyway, so nothing is
 * lost but the interleaving. A statement outside a transaction that finds the file locked by another
 * process is retried asynchronously (retryWhileBusy; the busy timeout is 0); inside a transaction a
 * busy statement fails the transaction, which rolls back and answers 503 (errorResponse). Returns an
 * adapter with the same methods.
 */
export function serialiseAdapter(inner: Adapter, lock = new ConnectionLock(), database: Database.Database | null = null): Adapter {
  async function exclusiveOnce<T>(work: () => Promise<T>): Promise<T> {
    await lock.acquire();
    try {
      return await work();
    } finally {
      lock.release();
    }
  }
  // A statement outside a transaction that finds the file busy applied nothing: it is tried again,
  // the lock released meanwhile, for a bounded time (db-busy.ts), then fails 503.
  const exclusive = <T>(work: () => Promise<T>): Promise<T> =>
    exclusiveOnce(work).catch((error: unknown) => (isDatabaseBusy(error) ? retryWhileBusy(() => exclusiveOnce(work)) : Promise.reject(error)));
  const adapter: Adapter = {
    provider: inner.provider,
    adapterName: inner.adapterName,
    queryRaw: (query) => exclusive(() => inner.queryRaw(query)),
    executeRaw: (query) => exclusive(() => inner.executeRaw(query)),
    executeScript: (script) => exclusive(() => inner.executeScript(script)),
    dispose: () => exclusive(() => inner.dispose()),
    async startTransaction(isolationLevel) {
      const release = () => lock.release();
      // Prisma's adapter begins DEFERRED: a write later in the transaction would then meet another
      // process's write lock mid-way and fail. A no-op write takes the file's write lock at the start
      // instead (the transaction's statements never find it busy); while another process holds it,
      // the transaction is rolled back and begun again, the lock released meanwhile, for a bounded
      // time (retryWhileBusy), then fails 503. Every interactive transaction of the console writes.
      const transaction = await retryWhileBusy(async () => {
        await lock.acquire();
        let begun: Transaction;
        try {
          begun = await inner.startTransaction(isolationLevel);
        } catch (error) {
          release();
          throw error;
        }
        if (database === null) return begun;
        try {
          database.prepare(WRITE_LOCK_PROBE).run();
          return begun;
        } catch (error) {
          // The adapter's rollback() only unlocks it (Prisma's engine sends the SQL): undo the BEGIN here.
          if (database.inTransaction) database.prepare("ROLLBACK").run();
          await begun.rollback().catch(() => undefined);
          release();
          throw error;
        }
      });
      let released = false;
      const finish = () => {
        if (released) return;
        released = true;
        release();
      };
      return {
        provider: transaction.provider,
        adapterName: transaction.adapterName,
        options: transaction.options,
        queryRaw: (query) => transaction.queryRaw(query),
        executeRaw: (query) => transaction.executeRaw(query),
        commit: async () => {
          try {
            await transaction.commit();
          } finally {
            finish();
          }
        },
        rollback: async () => {
          try {
            await transaction.rollback();
          } finally {
            finish();
          }
        },
      };
    },
  };
  if (inner.getConnectionInfo) adapter.getConnectionInfo = () => inner.getConnectionInfo!();
  return adapter;
}

/**
 * A driver adapter factory whose connections are serialised by serialiseAdapter (see there). Takes
 * Prisma's better-sqlite3 factory and `onConnect`, told of each new connection (its better-sqlite3
 * handle — the adapter's `client` — and its lock) so the console's own statements can share it;
 * returns a factory to hand to `new PrismaClient({ adapter })`.
 */
export function serialisedFactory(factory: PrismaBetterSQLite3, onConnect: (connection: SqliteConnection) => void = () => undefined): PrismaBetterSQLite3 {
  const wrapped: Pick<PrismaBetterSQLite3, "provider" | "adapterName" | "connect" | "connectToShadowDb"> = {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: async () => {
      const inner = await factory.connect();
      const lock = new ConnectionLock();
      // The adapter keeps its better-sqlite3 Database as `client` (@prisma/adapter-better-sqlite3 6.19).
      const database = (inner as unknown as { client?: Database.Database }).client;
      if (!database || typeof database.prepare !== "function") throw new Error("@prisma/adapter-better-sqlite3 no longer exposes its connection as `client`: update serialisedFactory");
      onConnect({ database, lock });
      return serialiseAdapter(inner, lock, database);
    },
    connectToShadowDb: async () => serialiseAdapter(await factory.connectToShadowDb()),
  };
  return wrapped as PrismaBetterSQLite3;
}

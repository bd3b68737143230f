import type { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";

type Adapter = Awaited<ReturnType<PrismaBetterSQLite3["connect"]>>;
type Transaction = Awaited<ReturnType<Adapter["startTransaction"]>>;

/** A FIFO lock: `acquire()` resolves with the release function once every earlier holder released. */
function createLock(): () => Promise<() => void> {
  let tail: Promise<void> = Promise.resolve();
  return () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const ready = tail.then(() => release);
    tail = tail.then(() => held);
    return ready;
  };
}

/**
 * Wraps one better-sqlite3 driver adapter so that an open interactive transaction owns the connection.
 * Prisma's adapter holds a mutex only between transactions: a query from another request runs on the
 * same connection while a transaction is open, so it silently joins that transaction — a rollback
 * undoes it (a timeline line, a lease renewal, a call's end state) and it reads uncommitted rows.
 * Here every statement outside a transaction waits for the transaction to commit or roll back, and
 * transactions wait for each other. better-sqlite3 runs statements synchronously anyway, so nothing is
 * lost but the interleaving. Returns an adapter with the same methods.
 */
export function serialiseAdapter(inner: Adapter): Adapter {
  const acquire = createLock();
  async function exclusive<T>(work: () => Promise<T>): Promise<T> {
    const release = await acquire();
    try {
      return await work();
    } finally {
      release();
    }
  }
  const adapter: Adapter = {
    provider: inner.provider,
    adapterName: inner.adapterName,
    queryRaw: (query) => exclusive(() => inner.queryRaw(query)),
    executeRaw: (query) => exclusive(() => inner.executeRaw(query)),
    executeScript: (script) => exclusive(() => inner.executeScript(script)),
    dispose: () => exclusive(() => inner.dispose()),
    async startTransaction(isolationLevel) {
      const release = await acquire();
      let transaction: Transaction;
      try {
        transaction = await inner.startTransaction(isolationLevel);
      } catch (error) {
        release();
        throw error;
      }
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
 * Prisma's better-sqlite3 factory; returns a factory to hand to `new PrismaClient({ adapter })`.
 */
export function serialisedFactory(factory: PrismaBetterSQLite3): PrismaBetterSQLite3 {
  const wrapped: Pick<PrismaBetterSQLite3, "provider" | "adapterName" | "connect" | "connectToShadowDb"> = {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: async () => serialiseAdapter(await factory.connect()),
    connectToShadowDb: async () => serialiseAdapter(await factory.connectToShadowDb()),
  };
  return wrapped as PrismaBetterSQLite3;
}

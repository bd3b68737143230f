import { createRequire } from "node:module";
import type { PrismaPg } from "@prisma/adapter-pg";
import type { SqlDriverAdapter, SqlMigrationAwareDriverAdapterFactory, SqlQuery, Transaction } from "@prisma/driver-adapter-utils";
import type pg from "pg";

/**
 * PostgreSQL's own types whose text the pg driver already returns as a string but that
 * @prisma/adapter-pg 6.19 has no column type for (its fieldToColumnType throws
 * UnsupportedNativeDataType): `char` (18, one byte) and `name` (19, an identifier). Prisma's schema
 * engine reads catalog columns of both while it describes a database, so every `migrate` command
 * through the adapter failed with "Column type 'name' could not be deserialized from the database"
 * (prisma/orm#27403, open). They are read as text (OID 25), which is what they are.
 */
const CATALOG_TEXT_TYPES = new Set([18, 19]);
const TEXT_OID = 25;

/** The parts of @prisma/adapter-pg's queryable classes this module wraps (not exported by the package). */
interface PgQueryableInternals {
  performIO(query: SqlQuery): Promise<pg.QueryArrayResult>;
  onError(error: unknown): never;
}

/**
 * PostgreSQL's text cannot hold U+0000 (it refuses the whole statement: "invalid byte sequence for
 * encoding UTF8: 0x00"), where SQLite stores it: a NUL in any text — a person's input, a worker's
 * error — would fail the request that carries it, and a call's finish report for good. It is stored as
 * U+FFFD, the replacement character invalid UTF-8 already becomes: by Prisma's queries here
 * (withStorableText) and by the console's own statements (postgres-statements.ts). Timeline lines get
 * the same on both engines when they are admitted (worker-reports.ts).
 */
export function storableText(text: string): string {
  return text.includes("\u0000") ? text.replaceAll("\u0000", "\ufffd") : text;
}

/** `query` with its text arguments through storableText. */
function withStorableText(query: SqlQuery): SqlQuery {
  if (!query.args.some((arg) => typeof arg === "string" && arg.includes("\u0000"))) return query;
  return { ...query, args: query.args.map((arg) => (typeof arg === "string" ? storableText(arg) : arg)) };
}

function readCatalogTypesAsText(queryable: PgQueryableInternals): void {
  const performIO = queryable.performIO.bind(queryable);
  queryable.performIO = async (query) => {
    const result = await performIO(withStorableText(query));
    for (const field of result.fields) if (CATALOG_TEXT_TYPES.has(field.dataTypeID)) field.dataTypeID = TEXT_OID;
    return result;
  };
}

/**
 * @prisma/adapter-pg 6.19's executeScript splits a script at every `;` and runs the pieces one by one,
 * so a migration with a `;` inside a string or a function body (the audit trail's plpgsql trigger
 * function) is cut into broken statements, and a failing piece leaves the ones before it applied.
 * Here the script runs as one simple-protocol query: PostgreSQL parses it itself and runs it in one
 * implicit transaction (all of it or none), as Prisma's own PostgreSQL connector does.
 */
function runScriptWhole(adapter: SqlDriverAdapter & PgQueryableInternals, client: pg.Pool): void {
  adapter.executeScript = async (script: string) => {
    try {
      await client.query(script);
    } catch (error) {
      adapter.onError(error);
    }
  };
}

function mend(adapter: SqlDriverAdapter): SqlDriverAdapter {
  const internals = adapter as SqlDriverAdapter & PgQueryableInternals;
  readCatalogTypesAsText(internals);
  runScriptWhole(internals, (adapter as unknown as { underlyingDriver(): pg.Pool }).underlyingDriver());
  const startTransaction = adapter.startTransaction.bind(adapter);
  adapter.startTransaction = async (isolationLevel) => {
    const transaction: Transaction = await startTransaction(isolationLevel);
    readCatalogTypesAsText(transaction as Transaction & PgQueryableInternals);
    return transaction;
  };
  return adapter;
}

/**
 * The console's PostgreSQL driver adapter factory: @prisma/adapter-pg's PrismaPg (same options: a
 * pg.Pool or its config) with two of its faults mended on every adapter it makes, the shadow
 * database's included — catalog `name`/`char` columns read as text (CATALOG_TEXT_TYPES), scripts run
 * whole (runScriptWhole), and U+0000 in text arguments stored as U+FFFD (withStorableText). Used by prisma.config.ts for `migrate`; tests/db/postgres-migrations.test.ts
 * shows both faults on the unwrapped adapter.
 */
export class ConsolePostgresAdapter implements SqlMigrationAwareDriverAdapterFactory {
  readonly provider = "postgres" as const;
  readonly adapterName: string;
  private readonly inner: PrismaPg;

  constructor(poolOrConfig: pg.Pool | pg.PoolConfig) {
    // Loaded here, not at import: db.ts imports this module on SQLite too, which never needs the pg driver.
    const { PrismaPg: Adapter } = createRequire(import.meta.url)("@prisma/adapter-pg") as typeof import("@prisma/adapter-pg");
    this.inner = new Adapter(poolOrConfig);
    this.adapterName = this.inner.adapterName;
  }

  /** Connects a pool (PrismaPg.connect) and returns its mended adapter. Rejects as PrismaPg does. */
  async connect(): Promise<SqlDriverAdapter> {
    return mend(await this.inner.connect());
  }

  /** Creates and connects a throwaway shadow database (PrismaPg.connectToShadowDb), mended. */
  async connectToShadowDb(): Promise<SqlDriverAdapter> {
    return mend(await this.inner.connectToShadowDb());
  }
}

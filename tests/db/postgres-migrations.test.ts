import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { PrismaPg } from "@prisma/adapter-pg";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ConsolePostgresAdapter } from "@/lib/server/postgres-adapter";
// @ts-expect-error -- a plain ESM script without type declarations
import { startPostgresCluster } from "../../scripts/postgres-cluster.mjs";
// @ts-expect-error -- a plain ESM script without type declarations
import { postgresSchemaOf } from "../../scripts/postgres-schema.mjs";

/**
 * The PostgreSQL schema and migrations (issue 11 point 1, DESIGN.md "Several replicas"): prisma/postgresql/
 * holds the same models as prisma/schema.prisma, its migrations build exactly that schema on a real
 * PostgreSQL 15 cluster started in a temp folder, the tables and columns match the SQLite database's,
 * and the audit trail is append-only there too.
 */

interface Cluster {
  url: string;
  stop(): void;
}

const prisma = path.resolve("node_modules/.bin/prisma");
let cluster: Cluster;

/** Runs the Prisma CLI against `url`; returns its exit status and output. */
function prismaCli(args: string[], url: string): { status: number | null; output: string } {
  const run = spawnSync(prisma, args, { env: { ...process.env, DATABASE_URL: url }, encoding: "utf8" });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Columns (`table.column type NULL|NOT NULL`), indexes and foreign keys of the public schema, sorted. */
async function postgresStructure(url: string): Promise<string[]> {
  return withClient(url, async (client) => {
    const columns = await client.query<{ line: string }>(
      `SELECT table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' ' || coalesce(column_default, '') AS line
         FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> '_prisma_migrations'`,
    );
    const indexes = await client.query<{ line: string }>(`SELECT indexdef AS line FROM pg_indexes WHERE schemaname = 'public' AND tablename <> '_prisma_migrations'`);
    const keys = await client.query<{ line: string }>(
      `SELECT conrelid::regclass::text || ' ' || pg_get_constraintdef(oid) AS line FROM pg_constraint WHERE contype = 'f' AND connamespace = 'public'::regnamespace`,
    );
    return [...columns.rows, ...indexes.rows, ...keys.rows].map((row) => row.line).sort();
  });
}

/** `table.column NULL|NOT NULL` of every table of the SQLite file (Prisma's tables aside), sorted. */
function sqliteColumns(file: string): string[] {
  const database = new Database(file, { readonly: true });
  try {
    const tables = database.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '_prisma%' AND name NOT LIKE 'sqlite_%'").all() as Array<{ name: string }>;
    return tables
      .flatMap(({ name }) =>
        (database.prepare(`PRAGMA table_info("${name}")`).all() as Array<{ name: string; notnull: number; pk: number }>).map(
          (column) => `${name}.${column.name} ${column.notnull || column.pk ? "NOT NULL" : "NULL"}`,
        ),
      )
      .sort();
  } finally {
    database.close();
  }
}

beforeAll(async () => {
  cluster = await startPostgresCluster();
  const deployed = prismaCli(["migrate", "deploy"], cluster.url);
  expect(deployed.output).toContain("All migrations have been successfully applied.");
  expect(deployed.status).toBe(0);
}, 120_000);

afterAll(() => cluster?.stop());

describe("prisma/postgresql", () => {
  it("holds exactly the schema scripts/postgres-schema.mjs derives from prisma/schema.prisma", () => {
    const derived = postgresSchemaOf(fs.readFileSync("prisma/schema.prisma", "utf8"));
    expect(fs.readFileSync("prisma/postgresql/schema.prisma", "utf8")).toBe(derived);
    expect(derived).toContain('provider = "postgresql"');
  });

  it("migrations build exactly the database prisma/postgresql/schema.prisma describes (no drift)", async () => {
    const expectedDatabase = "expected_schema";
    await withClient(cluster.url, (client) => client.query(`CREATE DATABASE ${expectedDatabase}`));
    const expectedUrl = cluster.url.replace(/\/[^/]+$/, `/${expectedDatabase}`);
    const script = execFileSync(prisma, ["migrate", "diff", "--from-empty", "--to-schema-datamodel", "prisma/postgresql/schema.prisma", "--script"], {
      env: { ...process.env, DATABASE_URL: expectedUrl },
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
    await withClient(expectedUrl, (client) => client.query(script));
    const migrated = await postgresStructure(cluster.url);
    expect(migrated.length).toBeGreaterThan(100);
    expect(migrated).toEqual(await postgresStructure(expectedUrl));
    expect(prismaCli(["migrate", "status"], cluster.url).output).toContain("Database schema is up to date!");
  }, 60_000);

  it("has the same tables and columns, with the same nullability, as the SQLite migrations", async () => {
    const columns = await withClient(cluster.url, async (client) => {
      const result = await client.query<{ line: string }>(
        `SELECT table_name || '.' || column_name || ' ' || CASE is_nullable WHEN 'YES' THEN 'NULL' ELSE 'NOT NULL' END AS line
           FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> '_prisma_migrations'`,
      );
      return result.rows.map((row) => row.line).sort();
    });
    expect(columns).toEqual(sqliteColumns(inject("templateDatabase")));
  });

  it("keeps the audit trail append-only: UPDATE, DELETE and TRUNCATE are refused and the row stays", async () => {
    await withClient(cluster.url, async (client) => {
      const inserted = await client.query<{ id: number }>(`INSERT INTO "AuditEvent" ("action", "actor") VALUES ('call.requested', 'alice') RETURNING "id"`);
      const id = inserted.rows[0]!.id;
      for (const statement of [`UPDATE "AuditEvent" SET "actor" = 'mallory' WHERE "id" = ${id}`, `DELETE FROM "AuditEvent" WHERE "id" = ${id}`, `TRUNCATE "AuditEvent"`]) {
        await expect(client.query(statement)).rejects.toThrow("the audit trail is append-only");
      }
      const kept = await client.query<{ actor: string }>(`SELECT "actor" FROM "AuditEvent" WHERE "id" = $1`, [id]);
      expect(kept.rows).toEqual([{ actor: "alice" }]);
    });
  });
});

describe("ConsolePostgresAdapter (the faults of @prisma/adapter-pg 6.19 it mends)", () => {
  const nameQuery = { sql: "SELECT 'console'::name AS n, 'c'::\"char\" AS c", args: [], argTypes: [] };

  it("reads catalog name and char columns as text, where the bare adapter refuses them (prisma/orm#27403)", async () => {
    const bare = await new PrismaPg({ connectionString: cluster.url }).connect();
    await expect(bare.queryRaw(nameQuery)).rejects.toMatchObject({ cause: { kind: "UnsupportedNativeDataType", type: "name" } });
    await bare.dispose();
    const mended = await new ConsolePostgresAdapter({ connectionString: cluster.url }).connect();
    const result = await mended.queryRaw(nameQuery);
    expect(result.rows).toEqual([["console", "c"]]);
    const transaction = await mended.startTransaction();
    expect((await transaction.queryRaw(nameQuery)).rows).toEqual([["console", "c"]]);
    await transaction.rollback();
    await mended.dispose();
  });

  it("runs a script whole: a ; inside a function body survives, and a failing script applies nothing", async () => {
    const functionScript = `CREATE FUNCTION semi_probe() RETURNS int LANGUAGE plpgsql AS $$ BEGIN PERFORM 1; RETURN 2; END; $$; SELECT semi_probe();`;
    const bare = await new PrismaPg({ connectionString: cluster.url }).connect();
    await expect(bare.executeScript(functionScript)).rejects.toBeDefined();
    await bare.dispose();
    const mended = await new ConsolePostgresAdapter({ connectionString: cluster.url }).connect();
    await mended.executeScript(functionScript);
    expect((await mended.queryRaw({ sql: "SELECT semi_probe() AS v", args: [], argTypes: [] })).rows).toEqual([[2]]);
    await expect(mended.executeScript(`CREATE TABLE half_applied (id int); SELECT no_such_function();`)).rejects.toBeDefined();
    expect((await mended.queryRaw({ sql: "SELECT to_regclass('half_applied') IS NULL AS absent", args: [], argTypes: [] })).rows).toEqual([[true]]);
    await mended.dispose();
  });
});

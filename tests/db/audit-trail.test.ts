/**
 * The audit trail is append-only (issue 4 point 5, issue 11 point 1): the migration's triggers refuse
 * UPDATE and DELETE of AuditEvent rows (and TRUNCATE on PostgreSQL), whoever opens the database —
 * checked here with the raw driver on the test console's database (better-sqlite3 on its file, or a
 * pg connection), not through Prisma.
 */
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listAudit, recordAudit } from "@/lib/server/audit/audit-trail";
import { onPostgres, setUpTestConsole, type TestConsole } from "../helpers/test-console";

/** One statement with `?` placeholders on the raw database; resolves its rows. */
type Raw = { query(sql: string, params?: unknown[]): Promise<Array<Record<string, unknown>>>; close(): Promise<void> };

async function openRaw(testConsole: TestConsole): Promise<Raw> {
  if (onPostgres()) {
    const client = new pg.Client({ connectionString: testConsole.databaseUrl });
    await client.connect();
    return {
      query: async (sql, params = []) => {
        let n = 0;
        return (await client.query(sql.replace(/\?/g, () => `$${++n}`), params)).rows;
      },
      close: () => client.end(),
    };
  }
  const database = new Database(testConsole.databaseFile);
  return {
    query: async (sql, params = []) => {
      const statement = database.prepare(sql);
      if (statement.reader) return statement.all(...params) as Array<Record<string, unknown>>;
      statement.run(...params);
      return [];
    },
    close: async () => void database.close(),
  };
}

let testConsole: TestConsole;
let raw: Raw;
const count = async (where = "", params: unknown[] = []) => Number((await raw.query(`SELECT COUNT(*) AS n FROM "AuditEvent"${where}`, params))[0]!.n);

beforeAll(async () => {
  testConsole = await setUpTestConsole();
  await recordAudit({ action: "test.appended", actor: "tester@console.local", actorId: null, details: { n: 1 } });
  raw = await openRaw(testConsole);
});

afterAll(() => raw?.close());

describe("AuditEvent triggers", () => {
  it("keeps what recordAudit wrote", async () => {
    expect(await count(" WHERE action = ?", ["test.appended"])).toBe(1);
    expect((await listAudit()).some((event) => event.action === "test.appended")).toBe(true);
  });

  it("refuses UPDATE", async () => {
    await expect(raw.query('UPDATE "AuditEvent" SET actor = ? WHERE action = ?', ["someone-else", "test.appended"])).rejects.toThrow(/append-only/);
    const [row] = await raw.query('SELECT actor FROM "AuditEvent" WHERE action = ?', ["test.appended"]);
    expect(row!.actor).toBe("tester@console.local");
  });

  it("refuses DELETE, one row or all", async () => {
    await expect(raw.query('DELETE FROM "AuditEvent" WHERE action = ?', ["test.appended"])).rejects.toThrow(/append-only/);
    await expect(raw.query('DELETE FROM "AuditEvent"')).rejects.toThrow(/append-only/);
    if (onPostgres()) await expect(raw.query('TRUNCATE "AuditEvent"')).rejects.toThrow(/append-only/);
    expect(await count()).toBeGreaterThan(0);
  });

  it("still appends new rows after the refusals", async () => {
    const before = await count();
    await recordAudit({ action: "test.appended_again", actor: "tester@console.local", actorId: null });
    expect(await count()).toBe(before + 1);
  });
});

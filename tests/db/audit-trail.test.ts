/**
 * The audit trail is append-only (issue 4 point 5): the migration's SQLite triggers refuse UPDATE and
 * DELETE of AuditEvent rows, whoever opens the database file — checked here with raw better-sqlite3 on
 * the test console's file, not through Prisma.
 */
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listAudit, recordAudit } from "@/lib/server/audit/audit-trail";
import { setUpTestConsole, type TestConsole } from "../helpers/test-console";

let testConsole: TestConsole;
let raw: Database.Database;

beforeAll(async () => {
  testConsole = await setUpTestConsole();
  await recordAudit({ action: "test.appended", actor: "tester@console.local", actorId: null, details: { n: 1 } });
  raw = new Database(testConsole.databaseFile);
});

afterAll(() => raw?.close());

describe("AuditEvent triggers", () => {
  it("keeps what recordAudit wrote", async () => {
    const count = (raw.prepare('SELECT COUNT(*) AS n FROM "AuditEvent" WHERE action = ?').get("test.appended") as { n: number }).n;
    expect(count).toBe(1);
    expect((await listAudit()).some((event) => event.action === "test.appended")).toBe(true);
  });

  it("refuses UPDATE", () => {
    expect(() => raw.prepare('UPDATE "AuditEvent" SET actor = ? WHERE action = ?').run("someone-else", "test.appended")).toThrow(/append-only/);
    const row = raw.prepare('SELECT actor FROM "AuditEvent" WHERE action = ?').get("test.appended") as { actor: string };
    expect(row.actor).toBe("tester@console.local");
  });

  it("refuses DELETE, one row or all", () => {
    expect(() => raw.prepare('DELETE FROM "AuditEvent" WHERE action = ?').run("test.appended")).toThrow(/append-only/);
    expect(() => raw.prepare('DELETE FROM "AuditEvent"').run()).toThrow(/append-only/);
    expect((raw.prepare('SELECT COUNT(*) AS n FROM "AuditEvent"').get() as { n: number }).n).toBeGreaterThan(0);
  });

  it("still appends new rows after the refusals", async () => {
    const count = () => (raw.prepare('SELECT COUNT(*) AS n FROM "AuditEvent"').get() as { n: number }).n;
    const before = count();
    await recordAudit({ action: "test.appended_again", actor: "tester@console.local", actorId: null });
    expect(count()).toBe(before + 1);
  });
});

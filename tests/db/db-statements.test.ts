/**
 * The console's own statements (lib/server/db-statements.ts) run on Prisma's SQLite connection (on
 * PostgreSQL, on connections of the pool Prisma's adapter uses). They
 * must read and write rows exactly as Prisma's models do (dates, booleans, integers), never land inside
 * an interactive transaction another request has open (Prisma's or their own), and their transactions
 * must commit or roll back as a whole.
 */
import { randomUUID } from "node:crypto";
import { Prisma } from "@prisma/client";
import { beforeAll, describe, expect, it } from "vitest";
import { db, dbReady } from "@/lib/server/db";
import { statements, statementTransaction } from "@/lib/server/db-statements";
import { countLockWaits, untilWaiting } from "../helpers/lock-waits";
import { onPostgres, setUpTestConsole } from "../helpers/test-console";

beforeAll(async () => {
  await setUpTestConsole();
  await dbReady();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));


function presetRow(name: string) {
  return { id: randomUUID(), skill: "statements", name, args: "{}", createdBy: "test" };
}

/** Inserts a preset through our statements. */
async function insertPreset(name: string, runner = statements()): Promise<string> {
  const row = presetRow(name);
  await runner.$executeRaw`INSERT INTO "ArgPreset" ("id", "skill", "name", "args", "createdBy", "createdAt", "updatedAt") VALUES (${row.id}, ${row.skill}, ${row.name}, ${row.args}, ${row.createdBy}, ${new Date()}, ${new Date()})`;
  return row.id;
}

async function presetNames(): Promise<string[]> {
  return (await db().argPreset.findMany({ where: { skill: "statements" }, orderBy: { name: "asc" } })).map((row) => row.name);
}

describe("values", () => {
  it("are stored as Prisma stores them and read back as Prisma reads them", async () => {
    const at = new Date("2026-11-30T12:34:56.789Z");
    const id = randomUUID();
    await statements().$executeRaw`INSERT INTO "WorkerToken" ("id", "name", "tokenHash", "prefix", "labels", "local", "createdBy", "createdAt", "revokedAt")
      VALUES (${id}, ${"values"}, ${`hash-${id}`}, ${"skw_x"}, ${"[]"}, ${true}, ${"test"}, ${at}, ${null})`;
    // Prisma's model reads what we wrote …
    const model = await db().workerToken.findUniqueOrThrow({ where: { id } });
    expect(model.createdAt.toISOString()).toBe("2026-11-30T12:34:56.789Z");
    expect(model.local).toBe(true);
    expect(model.revokedAt).toBeNull();
    // … and we read what Prisma's model writes, with the same types.
    const revokedAt = new Date("2026-12-01T01:02:03.004Z");
    await db().workerToken.update({ where: { id }, data: { revokedAt, local: false } });
    const [row] = await statements().$queryRaw<Array<{ createdAt: Date; revokedAt: Date; local: boolean; name: string }>>`SELECT "createdAt", "revokedAt", "local", "name" FROM "WorkerToken" WHERE "id" = ${id}`;
    expect(row).toEqual({ createdAt: at, revokedAt, local: false, name: "values" });
  });

  it("reads SQLite's own CURRENT_TIMESTAMP as UTC and integers as numbers", async () => {
    const [row] = await statements().$queryRaw<Array<{ count: number }>>`SELECT COUNT(*) AS "count" FROM "ArgPreset" WHERE "skill" = ${"nothing-here"}`;
    expect(row).toEqual({ count: 0 });
    const id = randomUUID();
    await statements().$executeRaw`INSERT INTO "WorkerToken" ("id", "name", "tokenHash", "prefix", "labels", "local", "createdBy", "createdAt") VALUES (${id}, ${"sqlite time"}, ${`hash-${id}`}, ${"skw_y"}, ${"[]"}, ${false}, ${"test"}, CURRENT_TIMESTAMP)`;
    const [stored] = await statements().$queryRaw<Array<{ createdAt: Date }>>`SELECT "createdAt" FROM "WorkerToken" WHERE "id" = ${id}`;
    expect(Math.abs(stored!.createdAt.getTime() - Date.now())).toBeLessThan(5_000);
  });

  it("refuses undefined as a value", async () => {
    await expect(statements().$queryRaw`SELECT ${undefined} AS "x"`).rejects.toThrow("undefined is not a SQL value (use null)");
  });

  it("take a Prisma.Sql built from fragments", async () => {
    const ids = [await insertPreset("fragment a"), await insertPreset("fragment b")];
    const rows = await statements().$queryRaw<Array<{ name: string }>>(Prisma.sql`SELECT "name" FROM "ArgPreset" WHERE "id" IN (${Prisma.join(ids)}) ORDER BY "name"`);
    expect(rows.map((row) => row.name)).toEqual(["fragment a", "fragment b"]);
  });
});

describe("isolation from open transactions", () => {
  it.skipIf(onPostgres())("a statement waits for Prisma's open transaction instead of joining it (its rollback keeps the statement)", async () => {
    let outside: Promise<string> | undefined;
    const settled: string[] = [];
    const transaction = db().$transaction(async (tx) => {
      await tx.argPreset.create({ data: presetRow("in prisma's transaction, rolled back") });
      const counter = await countLockWaits();
      outside = insertPreset("outside prisma's transaction, kept").then((id) => {
        settled.push("outside");
        return id;
      });
      await untilWaiting(1, counter);
      settled.push("transaction ends");
      throw new Error("roll back");
    });
    await expect(transaction).rejects.toThrow("roll back");
    await outside;
    // The statement was held back for the whole transaction: it settled only after the rollback.
    expect(settled).toEqual(["transaction ends", "outside"]);
    expect(await presetNames()).toContain("outside prisma's transaction, kept");
    expect(await presetNames()).not.toContain("in prisma's transaction, rolled back");
  });

  it.runIf(onPostgres())("on PostgreSQL a statement runs beside an open transaction on a connection of its own: it never sees the transaction's writes, and the rollback keeps it", async () => {
    let outside: string | undefined;
    let seen: number | undefined;
    const transaction = db().$transaction(async (tx) => {
      await tx.argPreset.create({ data: presetRow("in prisma's transaction, rolled back (pg)") });
      outside = await insertPreset("outside prisma's transaction, kept (pg)");
      seen = (await statements().$queryRaw<Array<{ count: number }>>`SELECT COUNT(*) AS "count" FROM "ArgPreset" WHERE "name" = ${"in prisma's transaction, rolled back (pg)"}`)[0]!.count;
      throw new Error("roll back");
    });
    await expect(transaction).rejects.toThrow("roll back");
    expect(typeof outside).toBe("string");
    expect(seen).toBe(0);
    const our = statementTransaction(async (tx) => {
      await insertPreset("in our transaction, rolled back (pg)", tx);
      await db().argPreset.create({ data: presetRow("prisma outside ours, kept (pg)") });
      throw new Error("roll back ours");
    });
    await expect(our).rejects.toThrow("roll back ours");
    const names = await presetNames();
    expect(names).toEqual(expect.arrayContaining(["outside prisma's transaction, kept (pg)", "prisma outside ours, kept (pg)"]));
    expect(names.filter((name) => name.includes("rolled back"))).toEqual([]);
  });

  it.skipIf(onPostgres())("Prisma's statements wait for our open transaction, and our rollback undoes only its own writes", async () => {
    let outside: Promise<unknown> | undefined;
    let seen: Promise<number> | undefined;
    const settled: string[] = [];
    const transaction = statementTransaction(async (tx) => {
      await insertPreset("in our transaction, rolled back", tx);
      const counter = await countLockWaits();
      outside = db()
        .argPreset.create({ data: presetRow("prisma outside ours, kept") })
        .then((row) => {
          settled.push("prisma write");
          return row;
        });
      seen = statements()
        .$queryRaw<Array<{ count: number }>>`SELECT COUNT(*) AS "count" FROM "ArgPreset" WHERE "name" = ${"in our transaction, rolled back"}`
        .then((rows) => {
          settled.push("read");
          return rows[0]!.count;
        });
      await untilWaiting(2, counter);
      settled.push("transaction ends");
      throw new Error("roll back ours");
    });
    await expect(transaction).rejects.toThrow("roll back ours");
    await outside;
    await seen;
    // Both were held back for the whole transaction: they settled only after the rollback.
    expect(settled[0]).toBe("transaction ends");
    expect([...settled].sort()).toEqual(["prisma write", "read", "transaction ends"]);
    // The read ran after the rollback: it never saw the uncommitted row.
    expect(await seen).toBe(0);
    const names = await presetNames();
    expect(names).toContain("prisma outside ours, kept");
    expect(names).not.toContain("in our transaction, rolled back");
  });

  it("our transaction commits all of its writes, and a failing statement rolls back the earlier ones", async () => {
    const value = await statementTransaction(async (tx) => {
      await insertPreset("committed one", tx);
      await insertPreset("committed two", tx);
      return "done";
    });
    expect(value).toBe("done");
    const duplicate = randomUUID();
    const failing = statementTransaction(async (tx) => {
      await tx.$executeRaw`INSERT INTO "ArgPreset" ("id", "skill", "name", "args", "createdBy", "createdAt", "updatedAt") VALUES (${duplicate}, ${"statements"}, ${"first of a failed pair"}, ${"{}"}, ${"test"}, ${new Date()}, ${new Date()})`;
      await tx.$executeRaw`INSERT INTO "ArgPreset" ("id", "skill", "name", "args", "createdBy", "createdAt", "updatedAt") VALUES (${duplicate}, ${"statements"}, ${"second of a failed pair"}, ${"{}"}, ${"test"}, ${new Date()}, ${new Date()})`;
    });
    await expect(failing).rejects.toMatchObject({ code: onPostgres() ? "23505" : "SQLITE_CONSTRAINT_PRIMARYKEY" });
    const names = await presetNames();
    expect(names).toEqual(expect.arrayContaining(["committed one", "committed two"]));
    expect(names).not.toContain("first of a failed pair");
  });

  it("a transaction's tx refuses statements once it has ended", async () => {
    let kept: Parameters<Parameters<typeof statementTransaction>[0]>[0] | undefined;
    await statementTransaction(async (tx) => {
      kept = tx;
    });
    await expect(kept!.$queryRaw`SELECT 1`).rejects.toThrow("statement on a transaction that has ended");
  });

  it("many interleaved transactions and statements all land, in order per caller", async () => {
    const writes = Array.from({ length: 40 }, (_, index) =>
      index % 2 === 0
        ? statementTransaction(async (tx) => {
            await insertPreset(`interleaved ${String(index).padStart(2, "0")}`, tx);
            await sleep(1);
          })
        : db().$transaction(async (tx) => {
            await tx.argPreset.create({ data: presetRow(`interleaved ${String(index).padStart(2, "0")}`) });
          }),
    );
    await Promise.all(writes);
    const names = (await presetNames()).filter((name) => name.startsWith("interleaved"));
    expect(names).toHaveLength(40);
  });
});

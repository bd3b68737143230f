/**
 * Prisma's better-sqlite3 adapter shares one connection between an open interactive transaction and
 * every other query of the process: without serialisation, a write made by another request while a
 * transaction is open joins that transaction and disappears when it rolls back, and reads see its
 * uncommitted rows. lib/server/serialised-sqlite-adapter.ts makes the transaction own the connection.
 */
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { db, dbReady } from "@/lib/server/db";
import { countLockWaits, untilWaiting } from "../helpers/lock-waits";
import { setUpTestConsole } from "../helpers/test-console";

beforeAll(async () => {
  await setUpTestConsole();
  await dbReady();
});


function presetRow(name: string) {
  return { id: randomUUID(), skill: "isolation", name, args: "{}", createdBy: "test" };
}

describe("interactive transactions on the shared SQLite connection", () => {
  it("keep a write made meanwhile by another request when they roll back", async () => {
    let outsideWrite: Promise<unknown> | undefined;
    const settled: string[] = [];
    const transaction = db().$transaction(async (tx) => {
      await tx.argPreset.create({ data: presetRow("inside, rolled back") });
      const counter = await countLockWaits();
      // .then() starts it now (a PrismaPromise runs only once awaited or then-ed).
      outsideWrite = db()
        .argPreset.create({ data: presetRow("outside, must stay") })
        .then((row) => {
          settled.push("outside");
          return row;
        });
      await untilWaiting(1, counter);
      settled.push("transaction ends");
      throw new Error("roll back");
    });
    await expect(transaction).rejects.toThrow("roll back");
    await outsideWrite;
    // The write was held back for the whole transaction: it settled only after the rollback.
    expect(settled).toEqual(["transaction ends", "outside"]);
    const names = (await db().argPreset.findMany({ where: { skill: "isolation" } })).map((row) => row.name);
    expect(names).toEqual(["outside, must stay"]);
  });

  it("do not let another request read their uncommitted rows", async () => {
    let seen: Promise<number> | undefined;
    const settled: string[] = [];
    const transaction = db().$transaction(async (tx) => {
      await tx.argPreset.create({ data: presetRow("uncommitted") });
      const counter = await countLockWaits();
      seen = db()
        .argPreset.count({ where: { skill: "isolation", name: "uncommitted" } })
        .then((count) => {
          settled.push("read");
          return count;
        });
      await untilWaiting(1, counter);
      settled.push("transaction ends");
      throw new Error("roll back");
    });
    await expect(transaction).rejects.toThrow("roll back");
    expect(await seen).toBe(0);
    expect(settled).toEqual(["transaction ends", "read"]);
  });
});

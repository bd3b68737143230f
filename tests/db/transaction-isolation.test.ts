/**
 * Prisma's better-sqlite3 adapter shares one connection between an open interactive transaction and
 * every other query of the process: without serialisation, a write made by another request while a
 * transaction is open joins that transaction and disappears when it rolls back, and reads see its
 * uncommitted rows. lib/server/serialised-sqlite-adapter.ts makes the transaction own the connection.
 */
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { db, dbReady } from "@/lib/server/db";
import { setUpTestConsole } from "../helpers/test-console";

beforeAll(async () => {
  await setUpTestConsole();
  await dbReady();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function presetRow(name: string) {
  return { id: randomUUID(), skill: "isolation", name, args: "{}", createdBy: "test" };
}

describe("interactive transactions on the shared SQLite connection", () => {
  it("keep a write made meanwhile by another request when they roll back", async () => {
    let outsideWrite: Promise<unknown> | undefined;
    const transaction = db().$transaction(async (tx) => {
      await tx.argPreset.create({ data: presetRow("inside, rolled back") });
      // .then() starts it now (a PrismaPromise runs only once awaited or then-ed).
      outsideWrite = db().argPreset.create({ data: presetRow("outside, must stay") }).then((row) => row);
      await sleep(100);
      throw new Error("roll back");
    });
    await expect(transaction).rejects.toThrow("roll back");
    await outsideWrite;
    const names = (await db().argPreset.findMany({ where: { skill: "isolation" } })).map((row) => row.name);
    expect(names).toEqual(["outside, must stay"]);
  });

  it("do not let another request read their uncommitted rows", async () => {
    let seen: Promise<number> | undefined;
    await db()
      .$transaction(async (tx) => {
        await tx.argPreset.create({ data: presetRow("uncommitted") });
        seen = db().argPreset.count({ where: { skill: "isolation", name: "uncommitted" } }).then((count) => count);
        await sleep(50);
        throw new Error("roll back");
      })
      .catch(() => undefined);
    expect(await seen).toBe(0);
  });
});

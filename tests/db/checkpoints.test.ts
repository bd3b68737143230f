/**
 * WAL checkpoints off the event loop (lib/server/db-checkpointer.ts): the console's connection never
 * checkpoints inside a commit (`wal_autocheckpoint = 0`, where a commit past 1,000 WAL pages copied ~4 MB
 * and fsynced the database, 14–57 ms on the event loop); a thread with its own connection copies the
 * WAL, which the next write then restarts. When the thread dies, SQLite's own checkpoints come back,
 * so the WAL cannot grow without bound. Real database file, real thread.
 */
import fs from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { dbReady, openSqliteConnection } from "@/lib/server/db";
import { checkpointerRunning, checkpointNow, checkpointThread, startCheckpointer } from "@/lib/server/db-checkpointer";
import { durable } from "@/lib/server/db-durability";
import { setUpTestConsole, type TestConsole } from "../helpers/test-console";

let testConsole: TestConsole;

beforeAll(async () => {
  testConsole = await setUpTestConsole();
  await dbReady();
});

/** Commits `rows` audit rows of ~4 KiB each, one commit per row, on the console's connection. */
function writeRows(rows: number): void {
  const insert = openSqliteConnection()!.database.prepare(`INSERT INTO "AuditEvent" ("at", "action", "actor", "details") VALUES (?, 'test.checkpoint', 'test', ?)`);
  for (let i = 0; i < rows; i++) insert.run(Date.now(), JSON.stringify({ filler: "f".repeat(4000), i }));
}

describe("WAL checkpoints", () => {
  it("are off in the console's connection and done by the thread, which copies the whole WAL; the next write restarts it", async () => {
    await expect.poll(() => checkpointerRunning(), { timeout: 10_000 }).toBe(true);
    expect(Number(openSqliteConnection()!.database.pragma("wal_autocheckpoint", { simple: true }))).toBe(0);
    writeRows(1500);
    const copied = await checkpointNow();
    // 1,500 rows of 4 KiB are more than 1,000 pages: SQLite would have checkpointed inside a commit.
    expect(copied.log).toBeGreaterThan(1000);
    expect(copied.checkpointed).toBe(copied.log);
    writeRows(1);
    const restarted = await checkpointNow();
    expect(restarted.log).toBeLessThan(10);
    expect(restarted.checkpointed).toBe(restarted.log);
    // The WAL file keeps its high-water size (SQLite reuses it from its start), not 1,500 rows more.
    writeRows(10);
    expect(fs.statSync(`${testConsole.databaseFile}-wal`).size).toBeLessThan(copied.log * 4096 * 1.5);
  });

  it("checkpointNow answers with the report of its own checkpoint, never of one asked for before it (under load, a stale report left the WAL unrestarted)", async () => {
    await expect.poll(() => checkpointerRunning(), { timeout: 10_000 }).toBe(true);
    writeRows(1500);
    const first = checkpointNow();
    // Written after the first request: only a checkpoint asked for afterwards is sure to copy them.
    writeRows(300);
    const wal = fs.statSync(`${testConsole.databaseFile}-wal`).size;
    const second = await checkpointNow();
    expect(second).not.toBe(await first);
    // Every frame of the WAL as it is now (32-byte header, 24-byte frame headers, 4 KiB pages), copied.
    expect(second.log).toBe((wal - 32) / (24 + 4096));
    expect(second.checkpointed).toBe(second.log);
  });

  it("checkpointNow asks again when another connection's checkpoint holds the WAL (SQLite answers busy as a row, log -1), never resolving with that non-report", async () => {
    await expect.poll(() => checkpointerRunning(), { timeout: 10_000 }).toBe(true);
    const console = openSqliteConnection()!.database;
    for (let round = 0; round < 5; round++) {
      writeRows(1500);
      const report = checkpointNow();
      // The console's connection checkpoints the same 1,500 frames at once, synchronously: the thread's
      // checkpoint, woken by the message just posted, finds the checkpoint lock taken.
      console.pragma("wal_checkpoint(PASSIVE)");
      const answered = await report;
      expect(answered.log).toBeGreaterThanOrEqual(1500);
      expect(answered.checkpointed).toBe(answered.log);
    }
  });

  it("keep the WAL bounded under writes that never pause (a refusal flood grew it to 1.2 GB), and cut its file back", async () => {
    await expect.poll(() => checkpointerRunning(), { timeout: 10_000 }).toBe(true);
    const wal = `${testConsole.databaseFile}-wal`;
    let largest = 0;
    let written = 0;
    // 120 MB of commits a few ms apart (an HTTP flood's pace; the thread's checkpoints never catch up
    // with the last frame, so without the connection's own checkpoint the WAL never restarts).
    while (written < 120 * 1024 * 1024) {
      writeRows(20);
      written += 20 * 4096;
      largest = Math.max(largest, fs.statSync(wal).size);
      // As the API answers a write: after the group commit's fsync of the WAL.
      await durable();
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    // 16 MiB (the size a restart cuts the file back to) and what is written during one of the thread's checkpoints.
    expect(largest).toBeLessThan(32 * 1024 * 1024);
    // Copied whole, the WAL restarts at the next write, and its file is cut back.
    await checkpointNow();
    writeRows(1);
    expect((await checkpointNow()).log).toBeLessThan(10);
    expect(fs.statSync(wal).size).toBeLessThanOrEqual(16 * 1024 * 1024);
  }, 120_000);

  it("come back into the console's connection when the thread dies, and go again when it restarts", async () => {
    await expect.poll(() => checkpointerRunning(), { timeout: 10_000 }).toBe(true);
    const { database } = openSqliteConnection()!;
    await checkpointThread()!.terminate();
    await expect.poll(() => Number(database.pragma("wal_autocheckpoint", { simple: true })), { timeout: 5_000 }).toBe(1000);
    expect(checkpointerRunning()).toBe(false);
    await expect(checkpointNow()).rejects.toThrow("no checkpoint thread is running");
    startCheckpointer(openSqliteConnection()!, testConsole.databaseFile);
    await expect.poll(() => checkpointerRunning(), { timeout: 10_000 }).toBe(true);
    expect(Number(database.pragma("wal_autocheckpoint", { simple: true }))).toBe(0);
  });
});

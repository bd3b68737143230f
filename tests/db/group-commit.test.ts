/**
 * Group commit (lib/server/db-durability.ts): the console's connection commits without an fsync on the
 * event loop (`synchronous = NORMAL`), and the API answers a request that may have written only after
 * an fsync of the WAL, run off the event loop and shared by the answers waiting at that moment. A
 * failed fsync answers 500, never "done". Real database file, real fsyncs (Node's FileHandle.sync is
 * wrapped only to watch them, or to fail one as a dying disk would).
 */
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dbReady, openSqliteConnection } from "@/lib/server/db";
import Database from "better-sqlite3";
import { durable, useGroupCommit } from "@/lib/server/db-durability";
import { startTestApiServer, type TestApiServer } from "../helpers/api-server";
import { setUpTestConsole, type TestConsole } from "../helpers/test-console";

let testConsole: TestConsole;
let server: TestApiServer;
let FileHandle: { prototype: { sync(): Promise<void> } };
let realSync: () => Promise<void>;

beforeAll(async () => {
  testConsole = await setUpTestConsole();
  await dbReady();
  server = await startTestApiServer();
  const probe = await fs.promises.open(testConsole.databaseFile, "r");
  FileHandle = probe.constructor as unknown as typeof FileHandle;
  await probe.close();
  realSync = FileHandle.prototype.sync;
});

afterAll(async () => {
  FileHandle.prototype.sync = realSync;
  await server.close();
});

describe("group commit", () => {
  it("runs the console's connection with synchronous = NORMAL (1), in WAL mode", () => {
    const { database } = openSqliteConnection()!;
    expect(Number(database.pragma("synchronous", { simple: true }))).toBe(1);
    expect(database.pragma("journal_mode", { simple: true })).toBe("wal");
  });

  it("makes every caller wait for an fsync of the WAL that started after it asked, one fsync shared by those who asked meanwhile", async () => {
    const syncs: Array<{ file: string; startedAt: number; endedAt: number | null }> = [];
    FileHandle.prototype.sync = async function (this: { fd: number }) {
      const entry = { file: fs.readlinkSync(`/proc/self/fd/${this.fd}`), startedAt: performance.now(), endedAt: null as number | null };
      syncs.push(entry);
      await new Promise((resolve) => setTimeout(resolve, 30));
      await realSync.call(this);
      entry.endedAt = performance.now();
    };
    try {
      openSqliteConnection()!.database.prepare(`INSERT INTO "AuditEvent" ("at", "action", "actor", "details") VALUES (?, 'test.group_commit', 'test', '{}')`).run(Date.now());
      const first = durable();
      await new Promise((resolve) => setTimeout(resolve, 5));
      // A commit made while the first fsync runs is not covered by it: those who ask now share the next one.
      openSqliteConnection()!.database.prepare(`INSERT INTO "AuditEvent" ("at", "action", "actor", "details") VALUES (?, 'test.group_commit', 'test', '{}')`).run(Date.now());
      const askedAt = performance.now();
      const later = [durable(), durable(), durable()];
      await Promise.all([first, ...later]);
      expect(syncs.map((sync) => sync.file)).toEqual([`${testConsole.databaseFile}-wal`, `${testConsole.databaseFile}-wal`]);
      expect(syncs[1]!.startedAt).toBeGreaterThan(askedAt);
      expect(syncs[1]!.startedAt).toBeGreaterThanOrEqual(syncs[0]!.endedAt!);
    } finally {
      FileHandle.prototype.sync = realSync;
    }
  });

  it("waits for no new fsync when no row changed since one that started with no transaction open, and counts a change made inside an open transaction", async () => {
    const syncs: number[] = [];
    FileHandle.prototype.sync = async function (this: { fd: number }) {
      syncs.push(performance.now());
      await new Promise((resolve) => setTimeout(resolve, 30));
      await realSync.call(this);
    };
    const { database } = openSqliteConnection()!;
    const insert = database.prepare(`INSERT INTO "AuditEvent" ("at", "action", "actor", "details") VALUES (?, 'test.group_commit', 'test', '{}')`);
    try {
      insert.run(Date.now());
      const first = durable();
      // Nothing changed since the fsync in flight started: joined, not queued after it.
      const joined = durable();
      await Promise.all([first, joined]);
      expect(syncs.length).toBe(1);
      // Nothing changed since it succeeded: no fsync at all (a search answered by POST).
      await durable();
      expect(syncs.length).toBe(1);
      // An fsync that starts while a transaction holds a change does not vouch for it, even once committed.
      database.prepare("BEGIN IMMEDIATE").run();
      insert.run(Date.now());
      const during = durable();
      database.prepare("COMMIT").run();
      await during;
      expect(syncs.length).toBe(2);
      await durable();
      expect(syncs.length).toBe(3);
      await durable();
      expect(syncs.length).toBe(3);
    } finally {
      if (database.inTransaction) database.prepare("ROLLBACK").run();
      FileHandle.prototype.sync = realSync;
    }
  });

  it("does not let an fsync that ends after a reconnect vouch for the new connection's changes (its count starts again at 0)", async () => {
    const syncs: number[] = [];
    FileHandle.prototype.sync = async function (this: { fd: number }) {
      syncs.push(performance.now());
      await new Promise((resolve) => setTimeout(resolve, 30));
      await realSync.call(this);
    };
    const original = openSqliteConnection()!.database;
    const walPath = `${testConsole.databaseFile}-wal`;
    const insert = `INSERT INTO "AuditEvent" ("at", "action", "actor", "details") VALUES (?, 'test.group_commit', 'test', '{}')`;
    const reconnected = new Database(testConsole.databaseFile);
    try {
      for (let i = 0; i < 5; i++) original.prepare(insert).run(Date.now());
      const before = durable();
      // The console's connection is replaced while that fsync runs; the new one writes one row (total_changes 1).
      useGroupCommit(reconnected, walPath);
      await before;
      reconnected.prepare(insert).run(Date.now());
      const count = syncs.length;
      await durable();
      expect(syncs.length).toBe(count + 1);
    } finally {
      useGroupCommit(original, walPath);
      reconnected.close();
      FileHandle.prototype.sync = realSync;
    }
  });

  it("answers a write 500 when the fsync fails (what it committed may be lost), and a read as usual", async () => {
    FileHandle.prototype.sync = async () => {
      throw Object.assign(new Error("EIO: i/o error, fsync"), { code: "EIO" });
    };
    try {
      const write = await fetch(`${server.url}/api/v1/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: "nobody@console.local", password: "wrong password" }) });
      expect(write.status).toBe(500);
      expect(await write.json()).toEqual({ error: { code: "internal", message: "The database could not be flushed to disk; what this request changed may be lost. See the console's log." } });
      const read = await fetch(`${server.url}/api/v1/auth/session`);
      expect(read.status).toBe(401);
    } finally {
      FileHandle.prototype.sync = realSync;
    }
    const again = await fetch(`${server.url}/api/v1/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: "nobody@console.local", password: "wrong password" }) });
    expect(again.status).toBe(401);
  });
});

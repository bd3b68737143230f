/**
 * What an attack on the PostgreSQL mode found (issue 11 point 1), each as the attack, on both engines
 * where it applies: serialization failures inside Prisma's transactions answered 500; a demotion whose
 * role was read before a concurrent promotion left no admin; an unpaired surrogate in a name answered
 * 500; replicas revoked each other's local worker; a replica's queue stayed full of calls another
 * replica's worker had claimed; a `wait: true` request hung when another replica ended its call; a
 * held lock made requests wait without bound, then fail 500.
 */
import { randomUUID } from "node:crypto";
import pg from "pg";
import { beforeAll, describe, expect, it, vi } from "vitest";
import * as callsRoute from "@/app/api/v1/calls/route";
import * as tokensRoute from "@/app/api/v1/tokens/route";
import { setUserRole } from "@/lib/server/auth/users";
import { ensureConsoleStarted } from "@/lib/server/console-startup";
import { QUEUED_CALL_OVERHEAD_BYTES, releaseQueueRoom, reserveQueueRoom } from "@/lib/server/calls/call-queue";
import { waitForCallEnd } from "@/lib/server/calls/wait-for-call";
import { interruptLapsedCalls } from "@/lib/server/calls/interrupt-calls";
import { resetDatabaseClockForTests } from "@/lib/server/database-clock";
import { db } from "@/lib/server/db";
import { statements } from "@/lib/server/db-statements";
import { modelTransaction } from "@/lib/server/db-transactions";
import { resetConfigForTests } from "@/lib/server/env";
import { mintLocalWorkerToken } from "@/lib/server/workers/local-worker";
import { listWorkers } from "@/lib/server/workers/list-workers";
import type { Call } from "@/lib/types/call";
import { requestCall } from "../api/approvals-fixtures";
import { registerProtocolWorker } from "../helpers/protocol-worker";
import { invoke } from "../helpers/route-client";
import { onPostgres, reloadTestConsole, setUpTestConsole, writeSkill, type TestConsole } from "../helpers/test-console";
import { createPerson, TEST_ADMIN } from "../helpers/test-people";

let testConsole: TestConsole;

beforeAll(async () => {
  testConsole = await setUpTestConsole();
  writeSkill(testConsole.root, "ok", { name: "ok" }, "echo '{\"done\": true}'");
  await reloadTestConsole();
});

describe("transactions", () => {
  it("run again after a serialization failure raised by a raw query inside Prisma's transaction (P2010), so both writers of a write skew land", async () => {
    const skill = `skew-${randomUUID()}`;
    let attempts = 0;
    let arrived = 0;
    let release!: () => void;
    const bothRead = new Promise<void>((resolve) => (release = resolve));
    const writer = (name: string) =>
      modelTransaction(async (tx) => {
        attempts += 1;
        const [row] = await tx.$queryRaw<Array<{ n: number | bigint }>>`SELECT COUNT(*) AS "n" FROM "ArgPreset" WHERE "skill" = ${skill}`;
        const n = Number(row!.n);
        // Both first attempts read before either writes: on PostgreSQL one of them cannot be ordered.
        if (++arrived === 2) release();
        if (attempts <= 2) await Promise.race([bothRead, new Promise((resolve) => setTimeout(resolve, 2000))]);
        await tx.$executeRaw`INSERT INTO "ArgPreset" ("id", "skill", "name", "args", "createdBy", "createdAt", "updatedAt") VALUES (${randomUUID()}, ${skill}, ${`${name} saw ${n}`}, ${"{}"}, ${"test"}, ${new Date()}, ${new Date()})`;
      });
    await Promise.all([writer("a"), writer("b")]);
    const names = (await db().argPreset.findMany({ where: { skill }, orderBy: { name: "asc" } })).map((row) => row.name);
    expect(names).toHaveLength(2);
    // Serialised: one of them saw the other's row.
    expect(names.filter((name) => name.endsWith("saw 1"))).toHaveLength(1);
    if (onPostgres()) expect(attempts).toBeGreaterThan(2);
  });
});

describe("the last admin", () => {
  it("survives a promotion and two demotions at once, whatever role each request read first", async () => {
    await ensureConsoleStarted();
    for (let round = 0; round < 10; round++) {
      const admin = await db().user.findFirstOrThrow({ where: { email: TEST_ADMIN.email } });
      await db().user.updateMany({ where: { id: { not: admin.id } }, data: { role: "viewer" } });
      await db().user.update({ where: { id: admin.id }, data: { role: "admin" } });
      const other = await db().user.findUniqueOrThrow({ where: { email: (await createPerson("viewer", `race-${round}`)).email } });
      const system = { email: "test", userId: null };
      await Promise.allSettled([setUserRole(other.id, "admin", system), setUserRole(admin.id, "viewer", system), setUserRole(other.id, "viewer", system)]);
      expect(await db().user.count({ where: { role: "admin" } }), `round ${round}`).toBeGreaterThanOrEqual(1);
    }
    await db().user.update({ where: { email: TEST_ADMIN.email }, data: { role: "admin" } });
  }, 60_000);
});

describe("text that is not Unicode", () => {
  it("is refused with 400 naming where, not answered 500", async () => {
    const response = await invoke(tokensRoute.POST, "/api/v1/tokens", { body: '{"persona": "default", "name": "agent \\ud800 token"}' });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string; message: string } }).error).toEqual({
      code: "bad_request",
      message: "request body has text that is not valid Unicode at .name (an unpaired UTF-16 surrogate, such as \\ud800 alone)",
    });
    // A pair written as two escapes is one character, and fine.
    expect((await invoke(tokensRoute.POST, "/api/v1/tokens", { body: '{"persona": "default", "name": "agent \\ud83d\\ude00 token"}' })).status).toBe(201);
  });
});

describe("replicas on one database", () => {
  it("each mint their own local worker token and revoke only their own earlier ones", async () => {
    const port = process.env.PORT;
    try {
      process.env.PORT = "3101";
      resetConfigForTests();
      await mintLocalWorkerToken();
      process.env.PORT = "3102";
      resetConfigForTests();
      await mintLocalWorkerToken();
      await mintLocalWorkerToken();
      const live = await db().workerToken.findMany({ where: { local: true, revokedAt: null, createdBy: { contains: ":310" } }, select: { createdBy: true } });
      expect(live.map((token) => token.createdBy.replace(/console .*:/, "console host:")).sort()).toEqual(["system (console host:3101)", "system (console host:3102)"]);
    } finally {
      if (port === undefined) delete process.env.PORT;
      else process.env.PORT = port;
      resetConfigForTests();
    }
  });

  it("give back the queue room of calls the database no longer holds queued (claimed by another replica's worker)", async () => {
    const budget = 4 * (1000 + QUEUED_CALL_OVERHEAD_BYTES);
    const gone = Array.from({ length: 4 }, () => randomUUID());
    for (const id of gone) await reserveQueueRoom(id, "x".repeat(998), budget);
    // Full, and none of them is a queued call: the room comes back instead of a 503.
    const next = randomUUID();
    await reserveQueueRoom(next, "x".repeat(998), budget);
    releaseQueueRoom(next);
  });

  it.runIf(onPostgres())("answer a wait: true request once another replica ended its call (nothing published here)", { timeout: 30_000 }, async () => {
    const { call } = (await (await requestCall("ok", { args: {}, wait: false })).json()) as { call: Call };
    await expect.poll(async () => (await db().call.findUniqueOrThrow({ where: { id: call.id } })).status, { timeout: 15_000 }).toBe("succeeded");
    // A call this process never saw end, as if another replica's worker ended it: ended in the database only.
    const id = randomUUID();
    await statements().$executeRaw`INSERT INTO "Call" ("id", "skill", "requestedBy", "args", "status", "createdAt", "stderrBytes", "stderrTruncated", "eventCount", "skillKind") VALUES (${id}, ${"ok"}, ${"test"}, ${"{}"}, ${"running"}, ${new Date()}, ${0}, ${false}, ${0}, ${"subprocess"})`;
    const waited = waitForCallEnd(id);
    await statements().$executeRaw`UPDATE "Call" SET "status" = 'succeeded', "result" = ${"{}"}, "endedAt" = ${new Date()} WHERE "id" = ${id}`;
    // The recheck runs every 5 s (wait-for-call.ts RECHECK_MS: announcements carry the end, this is the net).
    const ended = await Promise.race([waited, new Promise<null>((resolve) => setTimeout(() => resolve(null), 12_000))]);
    expect(ended?.status).toBe("succeeded");
  });

  it.runIf(onPostgres())("answer 503 within the lock timeout while another session holds a table lock, and serve once it is released", async () => {
    const holder = new pg.Client({ connectionString: testConsole.databaseUrl });
    await holder.connect();
    try {
      await holder.query("BEGIN");
      await holder.query('LOCK TABLE "Call" IN ACCESS EXCLUSIVE MODE');
      const started = Date.now();
      const response = await invoke(callsRoute.GET, "/api/v1/calls");
      expect(response.status).toBe(503);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe("unavailable");
      expect(Date.now() - started).toBeLessThan(15_000);
      await holder.query("ROLLBACK");
      expect((await invoke(callsRoute.GET, "/api/v1/calls")).status).toBe(200);
    } finally {
      await holder.end();
    }
  });

  it.runIf(onPostgres())("with a clock 30 s ahead, a replica neither ends a call whose lease is live nor spares one whose lease lapsed", async () => {
    const id = randomUUID();
    // Running on another replica's worker, its lease set by the database's clock: 10 s left.
    await statements().$executeRaw`INSERT INTO "Call" ("id", "skill", "requestedBy", "args", "status", "createdAt", "startedAt", "stderrBytes", "stderrTruncated", "eventCount", "skillKind", "workerId", "workerName", "leaseUntil")
      VALUES (${id}, ${"ok"}, ${"test"}, ${"{}"}, ${"running"}, ${new Date()}, ${new Date()}, ${0}, ${false}, ${0}, ${"subprocess"}, ${"worker-of-replica-a"}, ${"a"}, LOCALTIMESTAMP + INTERVAL '10 seconds')`;
    vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
    vi.setSystemTime(new Date(Date.now() + 30_000));
    resetDatabaseClockForTests();
    try {
      expect((await interruptLapsedCalls()).map((row) => row.id)).not.toContain(id);
      expect((await db().call.findUniqueOrThrow({ where: { id } })).status).toBe("running");
      await statements().$executeRaw`UPDATE "Call" SET "leaseUntil" = LOCALTIMESTAMP - INTERVAL '1 second' WHERE "id" = ${id}`;
      expect((await interruptLapsedCalls()).map((row) => row.id)).toContain(id);
      expect((await db().call.findUniqueOrThrow({ where: { id } })).status).toBe("interrupted");
    } finally {
      vi.useRealTimers();
      resetDatabaseClockForTests();
    }
  });

  it.runIf(onPostgres())("with a clock 30 s ahead, a replica shows a worker another replica just heard from as live, not lost", async () => {
    const { session } = await registerProtocolWorker("heard-on-a", []);
    vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
    vi.setSystemTime(new Date(Date.now() + 30_000));
    resetDatabaseClockForTests();
    try {
      // lastSeenAt and the judge of it on one clock, the database's: the lease is 15 s, the skew 30 s.
      expect((await listWorkers()).find((worker) => worker.id === session.id)?.state).toBe("live");
    } finally {
      vi.useRealTimers();
      resetDatabaseClockForTests();
    }
  });
});

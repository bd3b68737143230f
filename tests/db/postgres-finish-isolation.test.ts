/**
 * PostgreSQL's SERIALIZABLE locks what a transaction reads through a btree index per page (SSI), so two
 * transactions that each read one Call row through the primary key and then change an indexed column
 * of it (what a worker's finish report does: the start's skill and digest, then the status) cancel one
 * another even though they touch different calls: ~8 attempts per finish at 16 clients in the bench.
 * Finish and events reports run READ COMMITTED (lib/server/postgres-statements.ts PostgresIsolation),
 * their compare-and-set locking the row before anything is read and written back. These tests show the
 * mechanism with the interleaving made explicit, and that the timeline reports and finishes of many
 * calls at once need one attempt each (so do the events reports, which read and write the same way).
 */
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import * as holdersRoute from "@/app/api/v1/skills/[name]/workers/route";
import { dbReady, postgresPool } from "@/lib/server/db";
import { statements } from "@/lib/server/db-statements";
import { postgresTransaction, transactionRetries, type PostgresIsolation } from "@/lib/server/postgres-statements";
import type { Call } from "@/lib/types/call";
import type { SkillHolders } from "@/lib/types/worker";
import { Prisma } from "@prisma/client";
import { requestCall } from "../api/approvals-fixtures";
import { registerProtocolWorker } from "../helpers/protocol-worker";
import { invoke } from "../helpers/route-client";
import { onPostgres, reloadTestConsole, setUpTestConsole, writeSkill } from "../helpers/test-console";
import { useOwnWorkers } from "../helpers/test-worker";

/** How many calls end at once in the finish test (the bench's 16 clients). */
const AT_ONCE = 16;

beforeAll(async () => {
  if (!onPostgres()) return;
  const testConsole = await setUpTestConsole();
  // Only the test's own protocol worker claims the calls.
  useOwnWorkers();
  writeSkill(testConsole.root, "isolated", { name: "isolated" }, "echo '{}'");
  await reloadTestConsole();
  await dbReady();
});

/** A running call row with what the finish reads and changes. */
async function runningCall(): Promise<string> {
  const id = randomUUID();
  await statements().$executeRaw`INSERT INTO "Call" ("id", "skill", "requestedBy", "args", "status", "createdAt", "digest", "workerId")
    VALUES (${id}, 'isolation', 'test', '{}', 'running', ${new Date()}, 'digest', 'worker')`;
  return id;
}

/** A promise and the function that resolves it. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/**
 * Two transactions, one per call, interleaved on their first attempt: both read their call, then both
 * end it (an UPDATE of its status) and commit. Resolves the number of attempts each took.
 */
async function interleavedFinishes(isolation: PostgresIsolation): Promise<number[]> {
  const [first, second] = [await runningCall(), await runningCall()];
  const bothRead = [gate(), gate()];
  const attempts = [0, 0];
  const finish = (index: number, id: string) =>
    postgresTransaction(
      postgresPool(),
      async (tx) => {
        attempts[index]! += 1;
        await tx.query(Prisma.sql`SELECT "skill", "digest" FROM "Call" WHERE "id" = ${id}`);
        if (attempts[index] === 1) {
          bothRead[index]!.open();
          await bothRead[1 - index]!.opened;
        }
        await tx.execute(Prisma.sql`UPDATE "Call" SET "status" = 'succeeded', "endedAt" = ${new Date()} WHERE "id" = ${id} AND "status" = 'running'`);
      },
      isolation,
    );
  await Promise.all([finish(0, first), finish(1, second)]);
  const ended = await statements().$queryRaw<Array<{ status: string }>>`SELECT "status" FROM "Call" WHERE "id" IN (${first}, ${second})`;
  expect(ended.map((row) => row.status)).toEqual(["succeeded", "succeeded"]);
  return attempts;
}

describe.runIf(onPostgres())("ending two calls at once on PostgreSQL", () => {
  it("cancels one of them under SERIALIZABLE (SSI's page locks on the primary key), though they share no row", async () => {
    const attempts = await interleavedFinishes("serializable");
    expect(attempts.reduce((sum, count) => sum + count, 0)).toBeGreaterThan(2);
  });

  it("commits both at the first attempt under READ COMMITTED, each having locked its own row first", async () => {
    expect(await interleavedFinishes("read committed")).toEqual([1, 1]);
  });

  it(`stores the lines and ends of ${AT_ONCE} calls a worker reports at once without running any transaction again`, async () => {
    const holders = (await (await invoke(holdersRoute.GET, "/api/v1/skills/isolated/workers", { params: { name: "isolated" } })).json()) as SkillHolders;
    const worker = await registerProtocolWorker("isolation", [{ name: "isolated", digest: holders.digest!, available: true, reason: null }]);
    const calls = await Promise.all(Array.from({ length: AT_ONCE }, async () => ((await (await requestCall("isolated", { args: {}, wait: false })).json()) as { call: Call }).call));
    const claimed: string[] = [];
    for (let polls = 0; claimed.length < AT_ONCE && polls < 10; polls++) {
      const claim = await worker.client.claim(worker.session.id, AT_ONCE, worker.session.pollMs, AbortSignal.timeout(10_000));
      claimed.push(...claim.calls.map((assignment) => assignment.callId));
    }
    expect(claimed.sort()).toEqual(calls.map((call) => call.id).sort());
    const at = new Date().toISOString();
    // Timeline lines of every call at once, then every end at once: neither runs a transaction again.
    const beforeEvents = transactionRetries();
    await Promise.all(calls.map((call) => worker.client.sendEvents(worker.session.id, call.id, { events: [{ seq: 1, at, stream: "stderr", line: "working" }] })));
    expect(transactionRetries() - beforeEvents).toBe(0);
    const before = transactionRetries();
    await Promise.all(
      calls.map((call) =>
        worker.client.finish(worker.session.id, call.id, {
          status: "succeeded",
          exitCode: 0,
          result: "{}",
          error: null,
          durationMs: 5,
          stderrTruncated: false,
          events: [{ seq: 2, at, stream: "stderr", line: "done" }],
          spawned: { pid: 4242, pgid: 4242, host: "test", bootId: "boot", procStart: "1", at },
        }),
      ),
    );
    const ended = await statements().$queryRaw<Array<{ status: string }>>`SELECT "status" FROM "Call" WHERE "id" IN (${Prisma.join(calls.map((call) => call.id))})`;
    expect(ended.map((row) => row.status)).toEqual(Array(AT_ONCE).fill("succeeded"));
    expect(transactionRetries() - before).toBe(0);
  });
});

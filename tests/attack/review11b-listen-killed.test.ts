/**
 * Attack (issue 11): the LISTEN session of every replica is ended by the server
 * (`pg_terminate_backend`, what an operator's idle-session reaper or a failover does). Each replica
 * must open it again and hear the others: a call run by A's worker still streams live on B; and
 * what was announced while it was down (a loader reload) is caught up once it listens again.
 */
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LISTEN_APPLICATION_NAME } from "@/lib/server/replica-bus";
import type { Call, CallEvent } from "@/lib/types/call";
import { callReplica, followEventStream, signInAt, startReplica, startWorkerProcess, type TestProcess, type TestReplica } from "../helpers/replicas";
import { onPostgres, setUpTestConsole, writeSkill, type TestConsole } from "../helpers/test-console";
import { TEST_ADMIN } from "../helpers/test-people";
import { useOwnWorkers } from "../helpers/test-worker";

let testConsole: TestConsole;
let replicas: TestReplica[] = [];
let worker: TestProcess | null = null;
let admin: Record<string, string>;

async function listenSessions(): Promise<number[]> {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    // By name: a LISTEN session also sends its replica's NOTIFYs, so its last query is not always LISTEN.
    const { rows } = await client.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()`, [LISTEN_APPLICATION_NAME]);
    return rows.map((row) => row.pid);
  } finally {
    await client.end();
  }
}

async function terminate(pids: number[]): Promise<void> {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    for (const pid of pids) await client.query("SELECT pg_terminate_backend($1)", [pid]);
  } finally {
    await client.end();
  }
}

describe.skipIf(!onPostgres())("LISTEN sessions ended by the server", () => {
  beforeAll(async () => {
    testConsole = await setUpTestConsole({ CALL_LEASE_MS: "60000" });
    useOwnWorkers();
    writeSkill(testConsole.root, "slow", { name: "slow", timeout_seconds: 60 }, `for i in 1 2 3 4 5 6 7 8 9 10; do echo "line $i" >&2; sleep 0.1; done; sleep 3; echo '{"ok": true}'`);
    replicas = await Promise.all(["a", "b"].map((name) => startReplica(name)));
    admin = await signInAt(replicas[0]!.url, TEST_ADMIN.email, TEST_ADMIN.password);
    worker = await startWorkerProcess(replicas[0]!.url, "host-a", [], { WORKER_STATE_DIR: path.join(testConsole.dir, "state-a") });
  }, 120_000);

  afterAll(async () => {
    await worker?.stop("SIGKILL");
    await Promise.all(replicas.map((replica) => replica.stop("SIGKILL")));
  });

  it("are opened again, and B streams A's lines live", { timeout: 60_000 }, async () => {
    const [a, b] = replicas as [TestReplica, TestReplica];
    const before = await listenSessions();
    console.log(`LISTEN sessions before: ${before.join(", ")}`);
    expect(before.length).toBeGreaterThanOrEqual(2);
    await terminate(before);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const after = await listenSessions();
    console.log(`LISTEN sessions after: ${after.join(", ")}`);
    const { call } = (await (await callReplica(a.url, "POST", "/api/v1/skills/slow/calls", admin, { args: {}, wait: false })).json()) as { call: Call };
    const response = await fetch(`${b.url}/api/v1/calls/${call.id}/events`, { headers: admin });
    const lines: Array<{ seq: number; receivedAt: number }> = [];
    let endedAt = 0;
    await followEventStream(response, (event, receivedAt) => {
      if (event.event === "line") lines.push({ seq: (event.data as CallEvent).seq, receivedAt });
      if (event.event === "end") endedAt = receivedAt;
    });
    const live = lines.filter((line) => endedAt - line.receivedAt > 1500).length;
    console.log(`B: ${lines.length} lines, ${live} of them ≥ 1.5 s before the end`);
    expect(after.length).toBeGreaterThanOrEqual(2);
    expect(live).toBeGreaterThanOrEqual(9);
  });

  it("catch up on a reload announced while they were down: B scans again once it listens again", { timeout: 60_000 }, async () => {
    const [a, b] = replicas as [TestReplica, TestReplica];
    writeSkill(testConsole.root, "fresh", { name: "fresh" }, "echo '{\"fresh\": true}'");
    expect((await callReplica(b.url, "GET", "/api/v1/skills/fresh", admin)).status).toBe(404);
    // A's reload is announced (through its pool) within the quarter second before B opens its session again.
    await terminate(await listenSessions());
    expect((await callReplica(a.url, "POST", "/api/v1/loader/reload", admin)).status).toBe(200);
    expect((await callReplica(a.url, "GET", "/api/v1/skills/fresh", admin)).status).toBe(200);
    // B has no reload of its own on a timer: only its catch-up after reconnecting can bring the skill.
    await expect.poll(async () => (await callReplica(b.url, "GET", "/api/v1/skills/fresh", admin)).status, { timeout: 15_000, interval: 200 }).toBe(200);
  });
});

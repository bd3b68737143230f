/**
 * Attack (issue 11): a viewer opens ONE stream of a call on replica B with `Last-Event-ID: 2147483647`
 * (a valid, clamped id: "after everything"). Its replay found nothing, and the stream's claim raised
 * the channel's lastSeq that every stream of that call on B shares: every `events` announcement from
 * A was then ignored and the admin's stream on B lost its lines for good. The channel now moves only on
 * what it delivered; reads start after the smallest seq its listeners hold.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Call, CallEvent } from "@/lib/types/call";
import { callReplica, followEventStream, signInAt, startReplica, startWorkerProcess, type TestProcess, type TestReplica } from "../helpers/replicas";
import { onPostgres, setUpTestConsole, writeSkill, type TestConsole } from "../helpers/test-console";
import { TEST_ADMIN } from "../helpers/test-people";
import { useOwnWorkers } from "../helpers/test-worker";

let testConsole: TestConsole;
let replicas: TestReplica[] = [];
let worker: TestProcess | null = null;
let admin: Record<string, string>;
let viewer: Record<string, string>;

describe.skipIf(!onPostgres())("a huge Last-Event-ID on another replica", () => {
  beforeAll(async () => {
    testConsole = await setUpTestConsole({ CALL_LEASE_MS: "60000" });
    useOwnWorkers();
    // Ten lines, then a quiet 4 s, then the end.
    writeSkill(testConsole.root, "slow", { name: "slow", timeout_seconds: 60 }, `for i in 1 2 3 4 5 6 7 8 9 10; do echo "line $i" >&2; sleep 0.1; done; sleep 4; echo '{"ok": true}'`);
    replicas = await Promise.all(["a", "b"].map((name) => startReplica(name)));
    admin = await signInAt(replicas[0]!.url, TEST_ADMIN.email, TEST_ADMIN.password);
    expect((await callReplica(replicas[0]!.url, "POST", "/api/v1/users", admin, { email: "viewer@console.local", password: "password-of-viewer", role: "viewer" })).status).toBe(201);
    viewer = await signInAt(replicas[1]!.url, "viewer@console.local", "password-of-viewer");
    worker = await startWorkerProcess(replicas[0]!.url, "host-a", [], { WORKER_STATE_DIR: path.join(testConsole.dir, "state-a") });
  }, 120_000);

  afterAll(async () => {
    await worker?.stop("SIGKILL");
    await Promise.all(replicas.map((replica) => replica.stop("SIGKILL")));
  });

  it("still streams lines live to everyone else on that replica", { timeout: 60_000 }, async () => {
    const [a, b] = replicas as [TestReplica, TestReplica];
    const { call } = (await (await callReplica(a.url, "POST", "/api/v1/skills/slow/calls", admin, { args: {}, wait: false })).json()) as { call: Call };
    // The viewer's stream: one request, kept open.
    const hostile = await fetch(`${b.url}/api/v1/calls/${call.id}/events`, { headers: { ...viewer, "last-event-id": "2147483647" } });
    expect(hostile.status).toBe(200);
    const hostileDone = followEventStream(hostile, () => undefined);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const response = await fetch(`${b.url}/api/v1/calls/${call.id}/events`, { headers: admin });
    const lines: Array<{ seq: number; receivedAt: number }> = [];
    let endedAt = 0;
    await followEventStream(response, (event, receivedAt) => {
      if (event.event === "line") lines.push({ seq: (event.data as CallEvent).seq, receivedAt });
      if (event.event === "end") endedAt = receivedAt;
    });
    await hostileDone;
    const stderr = lines.length;
    console.log(`admin's stream on B: ${stderr} lines; the first ${lines[0] ? endedAt - lines[0].receivedAt : "?"} ms before the end, the last ${lines.at(-1) ? endedAt - lines.at(-1)!.receivedAt : "?"} ms before the end`);
    const stored = (await (await callReplica(a.url, "GET", `/api/v1/calls/${call.id}`, admin)).json()) as { call: Call & { events: CallEvent[] } };
    console.log(`stored ${stored.call.events.length} lines; streamed seqs ${JSON.stringify(lines.map((line) => line.seq))}`);
    // Every stored line, once, in order (none may be lost, live or not).
    expect(lines.map((line) => line.seq)).toEqual(stored.call.events.map((event) => event.seq));
    // Lines 1..10 were printed ≥ 4 s before the end: live, they reach the stream well before it.
    const beforeEnd = lines.filter((line) => endedAt - line.receivedAt > 2000).length;
    expect(beforeEnd).toBeGreaterThanOrEqual(9);
  });
});

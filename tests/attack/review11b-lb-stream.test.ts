/**
 * Attack (issue 11): a worker behind a load balancer without sticky sessions (DESIGN.md: "behind a
 * load balancer"; "its workers reconnect to any replica"). Its timeline reports alternate between
 * replicas A and B. A stream on B must show every line exactly once, in order.
 */
import http from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Call, CallEvent } from "@/lib/types/call";
import { callReplica, followEventStream, signInAt, startReplica, startWorkerProcess, type TestProcess, type TestReplica } from "../helpers/replicas";
import { onPostgres, setUpTestConsole, writeSkill, type TestConsole } from "../helpers/test-console";
import { TEST_ADMIN } from "../helpers/test-people";
import { useOwnWorkers } from "../helpers/test-worker";

const LINES = 3000;
let testConsole: TestConsole;
let replicas: TestReplica[] = [];
let worker: TestProcess | null = null;
let proxy: http.Server;
let proxyUrl = "";
let admin: Record<string, string>;

/** An HTTP load balancer: each request goes to the next replica in turn (no stickiness). */
function roundRobin(targets: string[]): Promise<{ server: http.Server; url: string }> {
  let next = 0;
  const server = http.createServer((request, response) => {
    const target = new URL(targets[next++ % targets.length]!);
    const upstream = http.request({ host: target.hostname, port: target.port, method: request.method, path: request.url, headers: request.headers }, (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    });
    upstream.on("error", () => response.destroy());
    request.pipe(upstream);
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}` })));
}

describe.skipIf(!onPostgres())("a worker behind a round-robin load balancer", () => {
  beforeAll(async () => {
    testConsole = await setUpTestConsole({ CALL_LEASE_MS: "60000" });
    useOwnWorkers();
    // Lines in bursts: many reports of a few lines each.
    writeSkill(testConsole.root, "flood", { name: "flood", timeout_seconds: 120 }, `i=0; while [ $i -lt ${LINES} ]; do i=$((i+1)); echo "line $i" >&2; case $((i % 20)) in 0) sleep 0.01;; esac; done; echo '{"ok": true}'`);
    replicas = await Promise.all(["a", "b"].map((name) => startReplica(name)));
    ({ server: proxy, url: proxyUrl } = await roundRobin(replicas.map((replica) => replica.url)));
    admin = await signInAt(replicas[0]!.url, TEST_ADMIN.email, TEST_ADMIN.password);
    worker = await startWorkerProcess(proxyUrl, "host-lb", [], { WORKER_STATE_DIR: path.join(testConsole.dir, "state-lb") });
  }, 120_000);

  afterAll(async () => {
    await worker?.stop("SIGKILL");
    proxy?.close();
    await Promise.all(replicas.map((replica) => replica.stop("SIGKILL")));
  });

  it("streams every line once and in order on each replica", { timeout: 120_000 }, async () => {
    const [a, b] = replicas as [TestReplica, TestReplica];
    const { call } = await (await callReplica(a.url, "POST", "/api/v1/skills/flood/calls", admin, { args: {}, wait: false })).json() as { call: Call };
    const follow = async (replica: TestReplica) => {
      const response = await fetch(`${replica.url}/api/v1/calls/${call.id}/events`, { headers: admin });
      const seqs: number[] = [];
      let ended: Call | null = null;
      await followEventStream(response, (event) => {
        if (event.event === "line") seqs.push((event.data as CallEvent).seq);
        if (event.event === "end") ended = (event.data as { call: Call }).call;
      });
      return { seqs, ended: ended as Call | null };
    };
    const [onA, onB] = await Promise.all([follow(a), follow(b)]);
    const stored = (await (await callReplica(a.url, "GET", `/api/v1/calls/${call.id}`, admin)).json()) as { call: Call & { events: CallEvent[] } };
    const expected = stored.call.events.map((event) => event.seq);
    expect(stored.call.status).toBe("succeeded");
    expect(expected.length).toBeGreaterThanOrEqual(LINES);
    const missing = (seqs: number[]) => expected.filter((seq) => !new Set(seqs).has(seq));
    console.log(`stored ${expected.length}; A streamed ${onA.seqs.length} (missing ${missing(onA.seqs).length}), B streamed ${onB.seqs.length} (missing ${missing(onB.seqs).length})`);
    expect({ a: missing(onA.seqs).slice(0, 20), b: missing(onB.seqs).slice(0, 20) }).toEqual({ a: [], b: [] });
    expect(onA.seqs).toEqual(expected);
    expect(onB.seqs).toEqual(expected);
  });
});

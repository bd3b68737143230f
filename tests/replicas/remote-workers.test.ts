/**
 * Workers on other hosts (issue 11 point 3): three worker processes, each with a skill root of its own
 * standing in for its host and its own labels, each long-polling a different console replica of one
 * PostgreSQL database; one holds a drifted copy of a skill. Targeted calls land on the worker the
 * target names (by label or name); w-b is started as an operator starts one (`npm run worker`, its
 * token in WORKER_TOKEN_FILE); the drifted worker never receives that skill (and the Workers page
 * of every replica shows the drift); 500 calls requested across the replicas each run exactly once.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Call } from "@/lib/types/call";
import { callReplica, signInAt, startReplica, startWorkerProcess, type TestProcess, type TestReplica } from "../helpers/replicas";
import { onPostgres, setUpTestConsole, writeSkill, type TestConsole } from "../helpers/test-console";
import { TEST_ADMIN } from "../helpers/test-people";
import { useOwnWorkers } from "../helpers/test-worker";

const CALLS = 500;
/** Requests in flight at once while the 500 calls are made. */
const CLIENTS = 16;
const HOSTS = [
  { worker: "w-a", labels: ["eu", "gpu"] },
  { worker: "w-b", labels: ["eu"] },
  { worker: "w-c", labels: ["us"] },
] as const;

let testConsole: TestConsole;
let replicas: TestReplica[] = [];
const workers: TestProcess[] = [];
let admin: Record<string, string>;

const MARK = {
  manifest: { name: "mark", env_allow: ["MARKER_DIR"], schema: { type: "object", required: ["nonce"], properties: { nonce: { type: "string", pattern: "^[a-z0-9-]+$" } } } },
  // One line per run, in the folder of the worker that ran it (its MARKER_DIR).
  script: 'nonce=$(sed -E \'s/.*"nonce":"([a-z0-9-]+)".*/\\1/\'); echo "$$" >> "$MARKER_DIR/run-$nonce"; echo "{\\"nonce\\": \\"$nonce\\"}"',
};
const PINNED = { manifest: { name: "pinned", env_allow: ["MARKER_DIR"] }, script: 'echo "$$" >> "$MARKER_DIR/pinned.runs"; echo \'{"pinned": 1}\'' };

function markersOf(worker: string): string {
  return path.join(testConsole.dir, "markers", worker);
}

/** The workers that ran `file` (a marker name), with how many lines each wrote. */
function runsOf(file: string): Record<string, number> {
  const runs: Record<string, number> = {};
  for (const { worker } of HOSTS) {
    const marker = path.join(markersOf(worker), file);
    if (fs.existsSync(marker)) runs[worker] = fs.readFileSync(marker, "utf8").split("\n").filter(Boolean).length;
  }
  return runs;
}

async function requestOn(replica: TestReplica, skill: string, body: Record<string, unknown>): Promise<Call> {
  const response = await callReplica(replica.url, "POST", `/api/v1/skills/${skill}/calls`, admin, body);
  const text = await response.text();
  expect(response.status, text).toBe(body.wait === false ? 202 : 200);
  return (JSON.parse(text) as { call: Call }).call;
}

describe.skipIf(!onPostgres())("three workers on three hosts, each polling another replica", () => {
  beforeAll(async () => {
    testConsole = await setUpTestConsole({ MARKER_DIR: "" });
    useOwnWorkers();
    writeSkill(testConsole.root, "mark", MARK.manifest, MARK.script);
    writeSkill(testConsole.root, "pinned", PINNED.manifest, PINNED.script);
    replicas = await Promise.all(["a", "b", "c"].map((name) => startReplica(name)));
    admin = await signInAt(replicas[0]!.url, TEST_ADMIN.email, TEST_ADMIN.password);
    for (const [index, host] of HOSTS.entries()) {
      const hostRoot = path.join(testConsole.dir, `host-${host.worker}`);
      fs.mkdirSync(path.join(hostRoot, "native"), { recursive: true });
      writeSkill(path.join(hostRoot, "skills"), "mark", MARK.manifest, MARK.script);
      // w-c's copy of `pinned` was edited on its host: another digest than the console's.
      writeSkill(path.join(hostRoot, "skills"), "pinned", PINNED.manifest, host.worker === "w-c" ? `${PINNED.script}\necho drifted >&2` : PINNED.script);
      fs.mkdirSync(markersOf(host.worker), { recursive: true });
      workers.push(
        await startWorkerProcess(replicas[index]!.url, host.worker, [...host.labels], {
          ONGRID_SKILLS_EXTERNAL_DIRS: path.join(hostRoot, "skills"),
          SKILLS_PATH: path.join(hostRoot, "native"),
          MARKER_DIR: markersOf(host.worker),
          WORKER_STATE_DIR: path.join(hostRoot, "state"),
          WORKER_CONCURRENCY: "8",
        }, host.worker === "w-b" ? { viaNpm: { tokenDir: hostRoot } } : {}),
      );
    }
  }, 120_000);

  afterAll(async () => {
    await Promise.all([...workers, ...replicas].map((child) => child.stop("SIGKILL")));
  });

  it("land targeted calls on the worker their label or name names, whichever replica takes them", { timeout: 60_000 }, async () => {
    const targets = [
      { target: "gpu", worker: "w-a" },
      { target: "us", worker: "w-c" },
      { target: "w-b", worker: "w-b" },
    ];
    for (const [index, { target, worker }] of targets.entries()) {
      const calls = await Promise.all(Array.from({ length: 6 }, (_, n) => requestOn(replicas[(index + n) % 3]!, "mark", { args: { nonce: `t-${target}-${n}` }, target })));
      expect(calls.map((call) => [call.status, call.worker, call.target])).toEqual(Array(6).fill(["succeeded", worker, target]));
      for (let n = 0; n < 6; n++) expect(runsOf(`run-t-${target}-${n}`)).toEqual({ [worker]: 1 });
    }
  });

  it("never hand the drifted worker the skill it holds another copy of, and show the drift on every replica", { timeout: 60_000 }, async () => {
    const calls = await Promise.all(Array.from({ length: 24 }, (_, n) => requestOn(replicas[n % 3]!, "pinned", { args: {} })));
    expect(calls.every((call) => call.status === "succeeded")).toBe(true);
    expect(new Set(calls.map((call) => call.worker))).not.toContain("w-c");
    expect(runsOf("pinned.runs")["w-c"]).toBeUndefined();
    // Targeted at the drifted worker's label only: no worker may take it; it waits, queued.
    const waiting = await requestOn(replicas[1]!, "pinned", { args: {}, target: "us", wait: false });
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const still = (await (await callReplica(replicas[2]!.url, "GET", `/api/v1/calls/${waiting.id}`, admin)).json()) as { call: Call };
    expect(still.call.status).toBe("queued");
    expect((await callReplica(replicas[0]!.url, "POST", `/api/v1/calls/${waiting.id}/cancel`, admin)).status).toBe(200);
    for (const replica of replicas) {
      const listed = (await (await callReplica(replica.url, "GET", "/api/v1/workers", admin)).json()) as { workers: Array<{ name: string; state: string; drifted: Array<string | { skill: string }> }> };
      const drifted = Object.fromEntries(listed.workers.filter((worker) => worker.state === "live").map((worker) => [worker.name, worker.drifted.map((entry) => (typeof entry === "string" ? entry : entry.skill))]));
      expect(drifted).toEqual({ "w-a": [], "w-b": [], "w-c": ["pinned"] });
    }
  });

  it(`run ${CALLS} calls requested across the replicas exactly once each`, { timeout: 300_000 }, async () => {
    const nonces = Array.from({ length: CALLS }, (_, n) => `n-${n}`);
    const calls: Call[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, client) => {
        for (let n = next++; n < CALLS; n = next++) calls.push(await requestOn(replicas[(client + n) % 3]!, "mark", { args: { nonce: nonces[n] } }));
      }),
    );
    expect(calls.filter((call) => call.status !== "succeeded").map((call) => [call.id, call.status, call.error])).toEqual([]);
    for (const nonce of nonces) expect(Object.values(runsOf(`run-${nonce}`)), nonce).toEqual([1]);
    // Every worker took part, and each call's record names the worker whose folder holds its marker.
    const byWorker = new Map<string, number>();
    for (const call of calls) {
      const nonce = (call.args as { nonce: string }).nonce;
      expect(Object.keys(runsOf(`run-${nonce}`))).toEqual([call.worker]);
      byWorker.set(call.worker!, (byWorker.get(call.worker!) ?? 0) + 1);
    }
    expect([...byWorker.keys()].sort()).toEqual(["w-a", "w-b", "w-c"]);
  });
});

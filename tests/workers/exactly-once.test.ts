/**
 * Exactly once (DESIGN.md "Claiming": the claim is a compare-and-set in the database): 200 calls
 * requested at once with two workers polling for them run once each — every call leaves exactly one
 * marker line, named by its own nonce — and each is claimed, started and finished once in the audit;
 * and no worker runs more than its WORKER_CONCURRENCY at once.
 */
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/server/db";
import type { Call } from "@/lib/types/call";
import { requestCall } from "../api/approvals-fixtures";
import { setUpTestConsole, writeSkill, type TestConsole } from "../helpers/test-console";
import { startTestWorker, useOwnWorkers } from "../helpers/test-worker";

const CALLS = 200;
let testConsole: TestConsole;
let markers: string;

beforeAll(async () => {
  testConsole = await setUpTestConsole({ MARKER_DIR: "", SKILL_ARGS_LIMIT_BYTES: String(1024 * 1024) });
  useOwnWorkers();
  markers = path.join(testConsole.dir, "markers");
  fs.mkdirSync(markers);
  process.env.MARKER_DIR = markers;
  writeSkill(
    testConsole.root,
    "mark",
    { name: "mark", env_allow: ["MARKER_DIR"], schema: { type: "object", required: ["nonce"], properties: { nonce: { type: "string", pattern: "^[0-9]+$" } } } },
    // One line per run: its pid, and when it started and ended (ns), to count the runs at once per worker.
    'nonce=$(sed -E \'s/.*"nonce":"([0-9]+)".*/\\1/\'); start=$(date +%s%N); sleep 0.05; echo "$$ $start $(date +%s%N)" >> "$MARKER_DIR/run-$nonce"; echo "{\\"nonce\\": \\"$nonce\\"}"',
  );
  await startTestWorker({ WORKER_NAME: "first", WORKER_CONCURRENCY: "8" });
  await startTestWorker({ WORKER_NAME: "second", WORKER_CONCURRENCY: "8" });
});

describe("200 concurrent calls and two workers", () => {
  it("run every call exactly once", async () => {
    const answers = await Promise.all(
      Array.from({ length: CALLS }, async (_, index) => {
        const response = await requestCall("mark", { args: { nonce: String(index) } });
        return { status: response.status, call: ((await response.json()) as { call: Call }).call };
      }),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(CALLS).fill(200));
    expect(answers.filter((answer) => answer.call.status !== "succeeded").map((answer) => [answer.call.id, answer.call.status, answer.call.error])).toEqual([]);
    for (let index = 0; index < CALLS; index++) {
      const lines = fs.readFileSync(path.join(markers, `run-${index}`), "utf8").split("\n").filter(Boolean);
      expect(lines, `nonce ${index}`).toHaveLength(1);
    }
    expect(fs.readdirSync(markers)).toHaveLength(CALLS);
    const ids = answers.map((answer) => answer.call.id);
    for (const action of ["call.claimed", "call.started", "call.finished"]) {
      const rows = await db().auditEvent.groupBy({ by: ["callId"], where: { action, callId: { in: ids } }, _count: true });
      expect(rows, action).toHaveLength(CALLS);
      expect(rows.every((row) => row._count === 1), action).toBe(true);
    }
    // WORKER_CONCURRENCY holds on each worker: never more than 8 of its runs at once (a slot frees
    // when a call's processes are gone, before its end is reported).
    for (const worker of ["first", "second"]) {
      const spans = answers
        .filter((answer) => answer.call.worker === worker)
        .map((answer) => fs.readFileSync(path.join(markers, `run-${(answer.call.args as { nonce: string }).nonce}`), "utf8").trim().split(" ").slice(1).map(BigInt));
      const edges = spans.flatMap(([start, end]) => [{ at: start!, step: 1 }, { at: end!, step: -1 }]).sort((a, b) => (a.at === b.at ? a.step - b.step : a.at < b.at ? -1 : 1));
      let running = 0;
      let most = 0;
      for (const edge of edges) most = Math.max(most, (running += edge.step));
      expect(most, worker).toBeGreaterThan(1);
      expect(most, worker).toBeLessThanOrEqual(8);
    }
    // Both workers took part.
    const byWorker = await db().call.groupBy({ by: ["workerName"], where: { id: { in: ids } }, _count: true });
    expect(byWorker.map((row) => row.workerName).sort()).toEqual(["first", "second"]);
  }, 120_000);
});

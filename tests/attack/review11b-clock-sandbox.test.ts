/**
 * Attack (issue 11, "a replica's clock off by 30 s"): worker liveness (`Worker.lastSeenAt`) is written
 * and judged with each replica's own clock. preferFullSandbox keeps a call from a worker without the
 * full sandbox while a live, fully sandboxed worker holds the same copy (DESIGN.md: "deny when in
 * doubt"). On a replica whose clock runs 30 s ahead, the sandboxed worker (kept live through replica
 * A) looks dead, and the unsandboxed worker polling that replica gets the call.
 */
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Call } from "@/lib/types/call";
import type { SkillHolders, WorkerRegistration, WorkerSession } from "@/lib/types/worker";
import { createWorkerToken } from "@/lib/server/workers/worker-tokens";
import { ConsoleClient } from "@/lib/worker/console-client";
import { callReplica, signInAt, startReplica, type TestReplica } from "../helpers/replicas";
import { onPostgres, setUpTestConsole, writeSkill, type TestConsole } from "../helpers/test-console";
import { TEST_ADMIN } from "../helpers/test-people";
import { useOwnWorkers } from "../helpers/test-worker";

let testConsole: TestConsole;
let a: TestReplica;
let fast: TestReplica;
let admin: Record<string, string>;

async function register(url: string, name: string, digest: string, sandboxed: boolean): Promise<{ client: ConsoleClient; session: WorkerSession; token: string }> {
  const { token } = await createWorkerToken({ email: "test@console.local", userId: null }, { name, labels: [] });
  const client = new ConsoleClient(url, token);
  const none = { by: "none" as const, value: null };
  const registration: WorkerRegistration = {
    name,
    labels: [],
    host: os.hostname(),
    version: "test",
    pid: null,
    concurrency: 4,
    sandbox: sandboxed
      ? { requested: "bwrap", mode: "bwrap", warning: null, uid: 65534, limits: { memory: none, pids: none, cpu: none }, kill: "cgroup" }
      : { requested: "none", mode: "none", warning: "SKILL_SANDBOX=none: calls run without bubblewrap", uid: 0, limits: { memory: none, pids: none, cpu: none }, kill: "process-group" },
    skills: [{ name: "job", digest, available: true, reason: null }],
  };
  return { client, session: await client.register(registration), token };
}

describe.skipIf(!onPostgres())("a replica whose clock runs 30 s ahead", () => {
  beforeAll(async () => {
    testConsole = await setUpTestConsole({ CALL_LEASE_MS: "15000" });
    useOwnWorkers();
    writeSkill(testConsole.root, "job", { name: "job" }, "echo '{\"ok\": true}'");
    const preload = path.resolve(__dirname, "clock-ahead.mjs");
    [a, fast] = await Promise.all([
      startReplica("a"),
      startReplica("fast", { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import ${preload}`, ATTACK_CLOCK_SKEW_MS: "30000" }),
    ]);
    admin = await signInAt(a.url, TEST_ADMIN.email, TEST_ADMIN.password);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([a, fast].map((replica) => replica?.stop("SIGKILL")));
  });

  it("does not hand a call to an unsandboxed worker while a sandboxed one holding it is live", { timeout: 60_000 }, async () => {
    const holders = (await (await callReplica(a.url, "GET", "/api/v1/skills/job/workers", admin)).json()) as SkillHolders;
    const digest = holders.digest!;
    // The sandboxed worker talks to A, and stays live there (a lease renewal every second).
    const sandboxed = await register(a.url, "sandboxed", digest, true);
    const keepAlive = setInterval(() => void sandboxed.client.renewLeases(sandboxed.session.id, []).catch(() => undefined), 1000);
    try {
      const weak = await register(a.url, "weak", digest, false);
      const { call } = (await (await callReplica(a.url, "POST", "/api/v1/skills/job/calls", admin, { args: {}, wait: false })).json()) as { call: Call };
      // Control: polling A (a right clock), the weak worker is given nothing: the call waits for the sandboxed one.
      const onA = await weak.client.claim(weak.session.id, 4, weak.session.pollMs, AbortSignal.timeout(weak.session.pollMs + 5000));
      expect(onA.calls.map((assignment) => assignment.callId)).toEqual([]);
      // The same poll through the replica 30 s ahead.
      const viaFast = new ConsoleClient(fast.url, weak.token);
      const onFast = await viaFast.claim(weak.session.id, 4, weak.session.pollMs, AbortSignal.timeout(weak.session.pollMs + 5000));
      console.log(`weak worker via the fast replica claimed: ${JSON.stringify(onFast.calls.map((assignment) => assignment.callId))} (call ${call.id})`);
      expect(onFast.calls.map((assignment) => assignment.callId)).toEqual([]);
    } finally {
      clearInterval(keepAlive);
    }
  });
});

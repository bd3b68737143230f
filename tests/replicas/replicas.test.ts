/**
 * Several console replicas on one PostgreSQL database, behind no sticky sessions (issue 11 point 2;
 * DESIGN.md "Several replicas"): three replica processes started at the same moment (their first
 * start-ups race: first admin, default persona, first scan), one worker process long-polling the third.
 * A session made on A works on B; a call requested on A is claimed at once by the worker on C (the
 * wake-up crosses replicas) and streams its stderr live over SSE from B; two approvers signing at once
 * on A and B start the call exactly once; an approvals stream on B tells of a request filed on C and
 * its signature on A; a reload on A is seen by B.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Approval } from "@/lib/types/approval";
import type { Call, CallEvent } from "@/lib/types/call";
import { createPersonaRow } from "../api/approvals-fixtures";
import { callReplica, followEventStream, percentile, signInAt, startReplica, startWorkerProcess, type TestProcess, type TestReplica } from "../helpers/replicas";
import { onPostgres, setUpTestConsole, writeNativeSkill, writeSkill, type TestConsole } from "../helpers/test-console";
import { TEST_ADMIN } from "../helpers/test-people";
import { useOwnWorkers } from "../helpers/test-worker";

const TICKS = 40;
let testConsole: TestConsole;
let markers: string;
let replicas: TestReplica[] = [];
let worker: TestProcess | null = null;
let admin: Record<string, string>;

function runsOf(skill: string): string[] {
  const file = path.join(markers, `${skill}.runs`);
  return fs.existsSync(file) ? fs.readFileSync(file, "utf8").split("\n").filter(Boolean) : [];
}

async function json<T>(response: Response, status: number): Promise<T> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  return JSON.parse(text) as T;
}

/** Creates a person with `role` through replica `at` (as the admin) and signs them in at `signInOn`. */
async function person(role: string, name: string, at: TestReplica, signInOn: TestReplica): Promise<{ email: string; headers: Record<string, string> }> {
  const email = `${name}@console.local`;
  await json(await callReplica(at.url, "POST", "/api/v1/users", admin, { email, password: `password-of-${name}`, role }), 201);
  return { email, headers: await signInAt(signInOn.url, email, `password-of-${name}`) };
}

describe.skipIf(!onPostgres())("three console replicas on one PostgreSQL database", () => {
  beforeAll(async () => {
    // A claim poll is held 20 s (a third of the lease): only a wake-up announced across replicas starts a call sooner.
    testConsole = await setUpTestConsole({ MARKER_DIR: "", CALL_LEASE_MS: "60000" });
    useOwnWorkers();
    markers = path.join(testConsole.dir, "markers");
    fs.mkdirSync(markers, { mode: 0o777 });
    process.env.MARKER_DIR = markers;
    writeSkill(
      testConsole.root,
      "ticker",
      { name: "ticker", timeout_seconds: 60 },
      `for i in $(seq 1 ${TICKS}); do echo "tick $i" >&2; sleep 0.05; done; echo '{"ticks": ${TICKS}}'`,
    );
    writeSkill(testConsole.root, "wiper", { name: "wiper", class: "dangerous", env_allow: ["MARKER_DIR"] }, 'echo "$$" >> "$MARKER_DIR/wiper.runs"; echo \'{"wiped": true}\'');
    writeNativeSkill(testConsole.nativeRoot, "ai", "keyed", {
      frontmatter: "name: keyed\ndescription: needs a token\nclass: safe\nprimaryEnv: REPLICA_TOKEN",
      files: { "scripts/show.sh": '#!/bin/sh\nprintf "%s" "$REPLICA_TOKEN"\n' },
    });
    await createPersonaRow("dual", "dual-sign-required");
    replicas = await Promise.all(["a", "b", "c"].map((name) => startReplica(name)));
    admin = await signInAt(replicas[0]!.url, TEST_ADMIN.email, TEST_ADMIN.password);
    worker = await startWorkerProcess(replicas[2]!.url, "host-c", [], { WORKER_STATE_DIR: path.join(testConsole.dir, "state-host-c") });
  }, 120_000);

  afterAll(async () => {
    await worker?.stop("SIGKILL");
    await Promise.all(replicas.map((replica) => replica.stop("SIGKILL")));
  });

  it("started at once, agree on one first admin, one default persona and the same skills", async () => {
    const [a, b, c] = replicas as [TestReplica, TestReplica, TestReplica];
    const users = await json<{ users: Array<{ email: string; role: string }> }>(await callReplica(b.url, "GET", "/api/v1/users", admin), 200);
    expect(users.users.filter((user) => user.role === "admin").map((user) => user.email)).toEqual([TEST_ADMIN.email]);
    const personas = await json<{ personas: Array<{ name: string }> }>(await callReplica(c.url, "GET", "/api/v1/personas", admin), 200);
    expect(personas.personas.map((persona) => persona.name).sort()).toEqual(["default", "dual"]);
    for (const replica of [a, b, c]) {
      const skills = await json<{ skills: Array<{ name: string }> }>(await callReplica(replica.url, "GET", "/api/v1/skills", admin), 200);
      expect(skills.skills.map((skill) => skill.name).filter((name) => name === "ticker" || name === "wiper").sort()).toEqual(["ticker", "wiper"]);
    }
  });

  it("take a session made on A on B and C", async () => {
    for (const replica of replicas) {
      const session = await json<{ identity: { email: string; role: string } }>(await callReplica(replica.url, "GET", "/api/v1/auth/session", admin), 200);
      expect(session.identity).toMatchObject({ email: TEST_ADMIN.email, role: "admin" });
    }
  });

  it("stream a call requested on A, run by C's worker, live over SSE from B, every line once and in order", { timeout: 60_000 }, async () => {
    const [a, b] = replicas as [TestReplica, TestReplica];
    const requestedAt = Date.now();
    const { call } = await json<{ call: Call }>(await callReplica(a.url, "POST", "/api/v1/skills/ticker/calls", admin, { args: {}, wait: false }), 202);
    const stream = await fetch(`${b.url}/api/v1/calls/${call.id}/events`, { headers: admin });
    expect(stream.status).toBe(200);
    const lines: Array<CallEvent & { receivedAt: number }> = [];
    let ended: Call | null = null;
    await followEventStream(stream, (event, receivedAt) => {
      if (event.event === "line") lines.push({ ...(event.data as CallEvent), receivedAt });
      if (event.event === "end") ended = (event.data as { call: Call }).call;
    });
    const ticks = lines.filter((line) => line.stream === "stderr");
    expect(ticks.map((line) => line.line)).toEqual(Array.from({ length: TICKS }, (_, index) => `tick ${index + 1}`));
    expect(lines.map((line) => line.seq)).toEqual(lines.map((_, index) => index + 1));
    expect(ended).toMatchObject({ id: call.id, status: "succeeded", result: { ticks: TICKS } });
    // The first tick comes ~0 s after the spawn: with the claim poll of C's worker waiting 20 s, only
    // the wake-up A announced across replicas starts it this soon.
    expect(ticks[0]!.receivedAt - requestedAt).toBeLessThan(10_000);
    // Live: the first tick reached B before the skill wrote its last one (not replayed at the end).
    expect(ticks[0]!.receivedAt).toBeLessThan(Date.parse(ticks[TICKS - 1]!.at));
    // Lines that were live (read after the stream opened): stderr read by the worker → the event on B.
    const live = ticks.slice(5).map((line) => line.receivedAt - Date.parse(line.at));
    console.log(`replicas: stderr → SSE on another replica, ${live.length} lines: p50 ${percentile(live, 0.5)} ms, p95 ${percentile(live, 0.95)} ms, max ${Math.max(...live)} ms`);
  });

  it("end a wait: true request on A when C's worker finishes it (the end crosses replicas)", { timeout: 60_000 }, async () => {
    const [a] = replicas as [TestReplica];
    const startedAt = Date.now();
    const { call } = await json<{ call: Call }>(await callReplica(a.url, "POST", "/api/v1/skills/ticker/calls", admin, { args: {}, wait: true }), 200);
    expect(call).toMatchObject({ status: "succeeded", result: { ticks: TICKS } });
    expect(Date.now() - startedAt).toBeLessThan(15_000);
  });

  it("run a dual-sign call exactly once when its two approvers sign at the same moment on A and on B", { timeout: 120_000 }, async () => {
    const [a, b, c] = replicas as [TestReplica, TestReplica, TestReplica];
    const requester = await person("approver", "requester", a, c);
    const first = await person("approver", "first", a, a);
    const second = await person("approver", "second", b, b);
    const rounds = 8;
    for (let round = 0; round < rounds; round++) {
      const { call } = await json<{ call: Call }>(await callReplica(c.url, "POST", "/api/v1/skills/wiper/calls", requester.headers, { args: {}, persona: "dual", wait: false }), 202);
      // The approval request is seen on every replica (the Approvals page and its badge read it).
      const pending = await json<{ approvals: Approval[] }>(await callReplica(b.url, "GET", "/api/v1/approvals?status=pending", first.headers), 200);
      const approval = pending.approvals.find((entry) => entry.callId === call.id)!;
      expect(approval).toMatchObject({ status: "pending", required: 2, signatures: [] });
      const answers = await Promise.all([
        callReplica(a.url, "POST", `/api/v1/approvals/${approval.id}/sign`, first.headers),
        callReplica(b.url, "POST", `/api/v1/approvals/${approval.id}/sign`, second.headers),
        // The same approver twice at once, on two replicas: one signature counts, the other is refused.
        callReplica(b.url, "POST", `/api/v1/approvals/${approval.id}/sign`, first.headers),
      ]);
      const statuses = answers.map((answer) => answer.status);
      expect(statuses[1]).toBe(200);
      expect([statuses[0], statuses[2]].sort()).toEqual([200, 409]);
      let ended: Call | null = null;
      await expect
        .poll(async () => {
          ended = (await json<{ call: Call }>(await callReplica(a.url, "GET", `/api/v1/calls/${call.id}`, admin), 200)).call;
          return ended.status;
        }, { timeout: 30_000 })
        .toBe("succeeded");
      const decided = await json<{ approvals: Approval[] }>(await callReplica(c.url, "GET", "/api/v1/approvals", admin), 200);
      const signed = decided.approvals.find((entry) => entry.id === approval.id)!;
      expect(signed.status).toBe("approved");
      expect(signed.signatures.map((signature) => signature.by).sort()).toEqual([first.email, second.email].sort());
    }
    // Give a second start every chance to show, then count the runs.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(runsOf("wiper")).toHaveLength(rounds);
  });

  it("tell an approvals stream on B of a request filed on C, a signature on A and a denial on C (the feed crosses replicas)", { timeout: 60_000 }, async () => {
    const [a, b, c] = replicas as [TestReplica, TestReplica, TestReplica];
    const requester = await person("approver", "feed-requester", a, c);
    const signer = await person("approver", "feed-signer", a, a);
    const controller = new AbortController();
    const response = await fetch(`${b.url}/api/v1/approvals/events`, { headers: admin, signal: controller.signal });
    expect(response.status).toBe(200);
    const events: Array<{ event: string; at: number }> = [];
    const following = followEventStream(response, (event, receivedAt) => events.push({ event: event.event, at: receivedAt })).catch(() => undefined);
    try {
      await expect.poll(() => events.map((entry) => entry.event)).toEqual(["ready"]);
      // Each step waits for its own change: B has no poll of its own, only the bus can bring it.
      const step = async (label: string, act: () => Promise<void>) => {
        const before = events.length;
        const sentAt = Date.now();
        await act();
        await expect.poll(() => events.length, { timeout: 5_000, interval: 10 }).toBe(before + 1);
        expect(events[before]!.event).toBe("change");
        console.log(`approvals feed: ${label} → change on B after ${events[before]!.at - sentAt} ms`);
      };
      let approvalId = "";
      await step("request on C", async () => {
        const { call } = await json<{ call: Call }>(await callReplica(c.url, "POST", "/api/v1/skills/wiper/calls", requester.headers, { args: {}, persona: "dual", wait: false }), 202);
        const pending = await json<{ approvals: Approval[] }>(await callReplica(c.url, "GET", "/api/v1/approvals?status=pending", admin), 200);
        approvalId = pending.approvals.find((entry) => entry.callId === call.id)!.id;
      });
      await step("signature on A", async () => void (await json(await callReplica(a.url, "POST", `/api/v1/approvals/${approvalId}/sign`, signer.headers), 200)));
      await step("denial on C", async () => void (await json(await callReplica(c.url, "POST", `/api/v1/approvals/${approvalId}/deny`, admin, { reason: "not from this test" }), 200)));
      // Nothing else arrives: one change per step.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(events.map((entry) => entry.event)).toEqual(["ready", "change", "change", "change"]);
    } finally {
      controller.abort();
      await following;
    }
  });

  it("offer on B a skill once a secret it needs is set on A, run it with the secret masked, and withdraw it when C deletes the secret", { timeout: 60_000 }, async () => {
    const [a, b, c] = replicas as [TestReplica, TestReplica, TestReplica];
    const keyed = async () => json<{ skill: { available: boolean; secretsGiven: string[] } }>(await callReplica(b.url, "GET", "/api/v1/skills/keyed", admin), 200);
    expect((await keyed()).skill).toMatchObject({ available: false, secretsGiven: [] });
    await json(await callReplica(a.url, "POST", "/api/v1/secrets", admin, { name: "REPLICA_TOKEN", value: "replica-token-value-42", skills: ["keyed"] }), 201);
    await expect.poll(async () => (await keyed()).skill.available, { timeout: 10_000, interval: 100 }).toBe(true);
    const run = await json<{ call: { status: string; result: unknown } }>(await callReplica(b.url, "POST", "/api/v1/skills/keyed/calls", admin, { args: { script: "show.sh" }, wait: true }), 200);
    expect(run.call).toMatchObject({ status: "succeeded", result: { stdout: "•••" } });
    await json(await callReplica(c.url, "DELETE", "/api/v1/secrets/REPLICA_TOKEN", admin), 200);
    await expect.poll(async () => (await keyed()).skill.available, { timeout: 10_000, interval: 100 }).toBe(false);
  });

  it("see on B a skill that a reload on A found", { timeout: 60_000 }, async () => {
    const [a, b] = replicas as [TestReplica, TestReplica];
    writeSkill(testConsole.root, "fresh", { name: "fresh" }, "echo '{\"fresh\": true}'");
    expect((await callReplica(b.url, "GET", "/api/v1/skills/fresh", admin)).status).toBe(404);
    await json(await callReplica(a.url, "POST", "/api/v1/loader/reload", admin), 200);
    await expect.poll(async () => (await callReplica(b.url, "GET", "/api/v1/skills/fresh", admin)).status, { timeout: 10_000, interval: 100 }).toBe(200);
  });
});

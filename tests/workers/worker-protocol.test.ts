/**
 * The worker protocol (DESIGN.md "Workers and the sandbox"): endpoints under /api/v1/workers/… accept
 * only worker tokens, a worker touches only calls it claimed (403, audited), a call goes only to a
 * worker holding the skill with the call's digest (drift is never given the call), `target` names a
 * worker or a label, and revoking a worker token ends its workers' running calls `interrupted`.
 */
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import * as tokensRoute from "@/app/api/v1/worker-tokens/route";
import * as tokenRoute from "@/app/api/v1/worker-tokens/[id]/route";
import * as workersRoute from "@/app/api/v1/workers/route";
import * as workerSkillsRoute from "@/app/api/v1/workers/[id]/skills/route";
import { LIVE_SESSIONS_PER_TOKEN } from "@/lib/server/workers/register-worker";
import { config } from "@/lib/server/env";
import * as holdersRoute from "@/app/api/v1/skills/[name]/workers/route";
import * as callsRoute from "@/app/api/v1/calls/route";
import { db } from "@/lib/server/db";
import type { Call } from "@/lib/types/call";
import type { FinishReport, SkillHolders, WorkerInfo, WorkerTokenInfo } from "@/lib/types/worker";
import { ConsoleClient } from "@/lib/worker/console-client";
import { createPersonaRow, errorOf, requestCall, waitForStatus } from "../api/approvals-fixtures";
import { registerProtocolWorker } from "../helpers/protocol-worker";
import { worstStall } from "../helpers/stall-watch";
import { invoke } from "../helpers/route-client";
import { reloadTestConsole, setUpTestConsole, writeSkill, type TestConsole } from "../helpers/test-console";
import { createPerson } from "../helpers/test-people";
import { startTestWorker, stopTestWorkers, testApiUrl, useOwnWorkers } from "../helpers/test-worker";

let testConsole: TestConsole;
let markers: string;

beforeAll(async () => {
  testConsole = await setUpTestConsole({ MARKER_DIR: "", CALL_LEASE_MS: "3000" });
  useOwnWorkers();
  markers = path.join(testConsole.dir, "markers");
  fs.mkdirSync(markers);
  process.env.MARKER_DIR = markers;
  writeSkill(testConsole.root, "echo", { name: "echo", env_allow: ["MARKER_DIR"], schema: { type: "object", properties: { tag: { type: "string", pattern: "^[a-z0-9-]+$" } } } }, 'tag=$(sed -E \'s/.*"tag":"([a-z0-9-]*)".*/\\1/\'); echo "$WORKER_LABEL" > "$MARKER_DIR/ran-$tag"; echo "{\\"tag\\": \\"$tag\\"}"');
  writeSkill(testConsole.root, "sleeper", { name: "sleeper", timeout_seconds: 60 }, "sleep 30");
  writeSkill(testConsole.root, "hello", { name: "hello" }, "cat >/dev/null; echo '{}'");
  await createPersonaRow("runner", "mutating-with-confirm");
});

async function digestOf(skill: string): Promise<string> {
  const holders = (await (await invoke(holdersRoute.GET, `/api/v1/skills/${skill}/workers`, { params: { name: skill } })).json()) as SkillHolders;
  return holders.digest!;
}

describe("worker endpoints accept only worker tokens", () => {
  it("answers 401 to no credentials, a person's session, an API token and a revoked worker token", async () => {
    const url = await testApiUrl();
    const body = JSON.stringify({ capacity: 1 });
    const anonymous = await fetch(`${url}/api/v1/workers/register`, { method: "POST", body, headers: { "content-type": "application/json" } });
    expect(anonymous.status).toBe(401);
    expect(await errorOf(anonymous)).toEqual({ code: "unauthenticated", message: "worker endpoints accept only a worker token (Authorization: Bearer skw_…; made on the Workers page)" });
    const admin = await createPerson("admin");
    const asPerson = await fetch(`${url}/api/v1/workers/register`, { method: "POST", body, headers: { "content-type": "application/json", ...admin.headers } });
    expect(asPerson.status).toBe(401);
    const made = await invoke(tokensRoute.POST, "/api/v1/worker-tokens", { body: { name: "to-revoke", labels: ["eu"] }, as: admin.headers });
    expect(made.status).toBe(201);
    const { token, workerToken } = (await made.json()) as { token: string; workerToken: WorkerTokenInfo };
    expect(token).toMatch(/^skw_[A-Za-z0-9_-]{43}$/);
    expect(workerToken).toMatchObject({ name: "to-revoke", labels: ["eu"], local: false, revokedAt: null, prefix: token.slice(0, 10) });
    expect(JSON.stringify(await (await invoke(tokensRoute.GET, "/api/v1/worker-tokens", { as: admin.headers })).json())).not.toContain(token);
    const revoked = await invoke(tokenRoute.DELETE, `/api/v1/worker-tokens/${workerToken.id}`, { method: "DELETE", params: { id: workerToken.id }, as: admin.headers });
    expect(revoked.status).toBe(200);
    const client = new ConsoleClient(url, token);
    await expect(client.renewLeases("anything", [])).rejects.toMatchObject({ status: 401, message: "the worker token is invalid or revoked" });
    // A worker token is not an API token either.
    const asWorker = await fetch(`${url}/api/v1/skills`, { headers: { authorization: `Bearer ${token}` } });
    expect(asWorker.status).toBe(401);
  });

  it("lets only admins make worker tokens", async () => {
    const operator = await createPerson("operator");
    const refused = await invoke(tokensRoute.POST, "/api/v1/worker-tokens", { body: { name: "nope" }, as: operator.headers });
    expect(refused.status).toBe(403);
    expect(await db().workerToken.count({ where: { name: "nope" } })).toBe(0);
  });
});

describe("a worker touches only the calls it claimed", () => {
  it("refuses events and finish for another worker's call (403, audited) and for its own ended call (409)", async () => {
    const digest = await digestOf("sleeper");
    const owner = await registerProtocolWorker("owner", [{ name: "sleeper", digest, available: true, reason: null }]);
    const intruder = await registerProtocolWorker("intruder", [{ name: "sleeper", digest: "0".repeat(64), available: true, reason: null }]);
    const { call } = (await (await requestCall("sleeper", { args: {}, wait: false })).json()) as { call: Call };
    const claim = await owner.client.claim(owner.session.id, 4, owner.session.pollMs, AbortSignal.timeout(10_000));
    expect(claim.calls.map((assignment) => assignment.callId)).toEqual([call.id]);
    expect(claim.calls[0]).toMatchObject({ skill: "sleeper", skillDigest: digest, digest: call.digest, argsJson: "{}" });

    const events = { events: [{ seq: 1, at: new Date().toISOString(), stream: "stderr", line: "forged" }] };
    await expect(intruder.client.sendEvents(intruder.session.id, call.id, events as never)).rejects.toMatchObject({ status: 403 });
    const finish: FinishReport = { status: "succeeded", exitCode: 0, result: '{"forged": true}', error: null, durationMs: 1, stderrTruncated: false, events: [] };
    await expect(intruder.client.finish(intruder.session.id, call.id, finish)).rejects.toMatchObject({ status: 403, message: `call ${call.id} was not claimed by worker intruder (${intruder.session.id})` });
    // Refused before its body is read: megabytes about another worker's call are never parsed.
    const unread = await fetch(`${await testApiUrl()}/api/v1/workers/${intruder.session.id}/calls/${call.id}/events`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${intruder.token}` },
      body: "{ this is not JSON",
    });
    expect(unread.status).toBe(403);
    // Its own token cannot pose as the owner's session either.
    await expect(intruder.client.finish(owner.session.id, call.id, finish)).rejects.toMatchObject({ status: 403, message: `worker session ${owner.session.id} belongs to another worker token` });
    const refusals = await db().auditEvent.findMany({ where: { action: "worker.refused" }, orderBy: { id: "asc" } });
    // The second timeline report is the same refusal again within the repeat window: counted, not written twice.
    expect(refusals.map((entry) => [entry.actor, JSON.parse(entry.details).what])).toEqual([
      ["worker-token:intruder", "report timeline lines"],
      ["worker-token:intruder", "finish a call"],
      ["worker-token:intruder", "finish a call"],
    ]);
    expect((await db().call.findUniqueOrThrow({ where: { id: call.id } })).status).toBe("running");
    expect(await db().callEvent.count({ where: { callId: call.id } })).toBe(0);

    await owner.client.finish(owner.session.id, call.id, { ...finish, result: '{"ok": true}', events: [{ seq: 1, at: new Date().toISOString(), stream: "stderr", line: "done" }] });
    expect(await db().call.findUniqueOrThrow({ where: { id: call.id } })).toMatchObject({ status: "succeeded", result: '{"ok": true}', workerName: "owner" });
    await expect(owner.client.finish(owner.session.id, call.id, finish)).rejects.toMatchObject({ status: 409, message: `call ${call.id} is succeeded, no longer running on this worker: stop it` });
  });

  it("stores no result that is not one JSON object: the call fails with the reason and every listing still answers", async () => {
    // Results are served as stored, unparsed (lib/server/http/stored-json.ts): a worker's forged text
    // such as `{"a":1},"status":"x"` must never reach an answer, nor break every listing with a 500.
    const digest = await digestOf("sleeper");
    const worker = await registerProtocolWorker("liar", [{ name: "sleeper", digest, available: true, reason: null }]);
    const cases: Array<[string, string]> = [
      ['{"a":1},"status":"forged","b":{"c":2}', "it is not JSON (Unexpected non-whitespace character after JSON at position 7)"],
      ["[1,2]", "it is not a JSON object"],
      [`${"[".repeat(200)}${"]".repeat(200)}`, "it is not a JSON object"],
      [`{"deep":${"[".repeat(200)}${"]".repeat(200)}}`, "it nests deeper than 128 levels"],
      [`{"big":"${"x".repeat(100_000)}",}`, "it is not JSON (Expected double-quoted property name in JSON at position 100010)"],
      [`{"big":"${"x".repeat(4 * 1024 * 1024)}"}`, "it is larger than SKILL_STDOUT_LIMIT_BYTES (4194304 bytes)"],
      // Tens of megabytes beside the lines (an attacker's 31 MB of é held the event loop 275 ms): parsed
      // off the main thread, and never brought back to it.
      [`{"big":"${"é".repeat(12 * 1024 * 1024)}"}`, "it is larger than SKILL_STDOUT_LIMIT_BYTES (4194304 bytes)"],
    ];
    for (const [result, why] of cases) {
      const { call } = (await (await requestCall("sleeper", { args: {}, wait: false })).json()) as { call: Call };
      const claim = await worker.client.claim(worker.session.id, 4, worker.session.pollMs, AbortSignal.timeout(10_000));
      expect(claim.calls.map((assignment) => assignment.callId)).toEqual([call.id]);
      const { value, stallMs } = await worstStall(() => worker.client.finish(worker.session.id, call.id, { status: "succeeded", exitCode: 0, result, error: null, durationMs: 1, stderrTruncated: false, events: [] }));
      const answer = value as unknown as { call: Call };
      expect(answer.call).toMatchObject({ status: "failed", result: null, error: `the result the worker reported was not stored: ${why}` });
      // Generous: it catches a body parsed on the main thread at its worst, not the 50 ms the benchmark measures.
      expect(stallMs).toBeLessThan(1000);
      expect(await db().call.findUniqueOrThrow({ where: { id: call.id } })).toMatchObject({ status: "failed", result: null });
    }
    // A large result within the limit takes the same way and is stored as sent.
    const big = JSON.stringify({ big: "é".repeat(1024 * 1024) });
    const { call } = (await (await requestCall("sleeper", { args: {}, wait: false })).json()) as { call: Call };
    await worker.client.claim(worker.session.id, 4, worker.session.pollMs, AbortSignal.timeout(10_000));
    const kept = (await worker.client.finish(worker.session.id, call.id, { status: "succeeded", exitCode: 0, result: big, error: null, durationMs: 1, stderrTruncated: false, events: [] })) as unknown as { call: Call };
    expect(kept.call.status).toBe("succeeded");
    expect((await db().call.findUniqueOrThrow({ where: { id: call.id } })).result).toBe(big);
    const listed = await invoke(callsRoute.GET, "/api/v1/calls?limit=50");
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as { calls: Call[] }).calls.filter((call) => call.skill === "sleeper" && call.status === "failed")).toHaveLength(cases.length);
  });
});

describe("claims are bound to the skill's digest", () => {
  it("never hands a call to a worker whose copy has another digest, and shows it drifted", async () => {
    const digest = await digestOf("echo");
    const drifted = await registerProtocolWorker("drifted", [{ name: "echo", digest: "f".repeat(64), available: true, reason: null }]);
    const { call } = (await (await requestCall("echo", { args: { tag: "drift" }, wait: false })).json()) as { call: Call };
    const claim = await drifted.client.claim(drifted.session.id, 4, drifted.session.pollMs, AbortSignal.timeout(10_000));
    expect(claim.calls).toEqual([]);
    expect((await db().call.findUniqueOrThrow({ where: { id: call.id } })).status).toBe("queued");
    const holders = (await (await invoke(holdersRoute.GET, "/api/v1/skills/echo/workers", { params: { name: "echo" } })).json()) as SkillHolders;
    expect(holders.digest).toBe(digest);
    expect(holders.workers.find((worker) => worker.name === "drifted")).toMatchObject({ digest: "f".repeat(64), drifted: true, state: "live" });
    const { workers } = (await (await invoke(workersRoute.GET, "/api/v1/workers")).json()) as { workers: WorkerInfo[] };
    const listed = workers.find((worker) => worker.name === "drifted")!;
    expect(listed).toMatchObject({ drifted: ["echo"], skillCounts: { held: 1, unavailable: 0, drifted: 1 }, state: "live", labels: [] });
    expect(listed.skills).toEqual([{ name: "echo", digest: "f".repeat(64), available: true, reason: null }]);
    const page = await invoke(workerSkillsRoute.GET, `/api/v1/workers/${listed.id}/skills`, { method: "GET", params: { id: listed.id } });
    expect(await page.json()).toEqual({ skills: [{ name: "echo", digest: "f".repeat(64), available: true, reason: null, drifted: true }], next: null });
    // A worker with the right copy takes it.
    await startTestWorker({ WORKER_NAME: "right" });
    expect(await waitForStatus(call.id, ["succeeded", "failed"])).toBe("succeeded");
    expect((await db().call.findUniqueOrThrow({ where: { id: call.id } })).workerName).toBe("right");
  });

  it("after a drift, the worker looks again on its own: a copy put back as it was is reported matching within seconds", async () => {
    writeSkill(testConsole.root, "flip", { name: "flip" }, "echo '{}'");
    await reloadTestConsole();
    const digest = await digestOf("flip");
    const worker = await startTestWorker({ WORKER_NAME: "flipper" });
    const holder = async () => {
      const holders = (await (await invoke(holdersRoute.GET, "/api/v1/skills/flip/workers", { params: { name: "flip" } })).json()) as SkillHolders;
      return holders.workers.find((entry) => entry.name === "flipper" && entry.state === "live");
    };
    expect(await holder()).toMatchObject({ digest, drifted: false });
    const entry = path.join(testConsole.root, "flip", "run.sh");
    const original = fs.readFileSync(entry);
    fs.writeFileSync(entry, "#!/bin/sh\necho '{\"evil\": true}'\n");
    // What a refused call does (run-assignment's onDrift): the worker rescans and reports the changed copy.
    (worker as unknown as { afterDrift(): void }).afterDrift();
    await expect.poll(async () => (await holder())?.drifted, { timeout: 5_000 }).toBe(true);
    fs.writeFileSync(entry, original);
    // No reload, no new call: the follow-up rescan (DRIFT_RECHECK_MS, first after 2 s) reports it matching again.
    await expect.poll(async () => (await holder())?.digest, { timeout: 8_000 }).toBe(digest);
    expect(await holder()).toMatchObject({ drifted: false });
  });

  it("runs a call naming a target only on that worker, by name or by label", async () => {
    await startTestWorker({ WORKER_NAME: "eu-1", WORKER_LABELS: "eu,gpu" });
    await startTestWorker({ WORKER_NAME: "us-1", WORKER_LABELS: "us" });
    for (const [target, worker] of [["eu-1", "eu-1"], ["us", "us-1"], ["gpu", "eu-1"]] as const) {
      for (let round = 0; round < 3; round++) {
        const response = await requestCall("echo", { args: { tag: `t-${target}-${round}` }, target });
        const { call } = (await response.json()) as { call: Call };
        expect(call).toMatchObject({ status: "succeeded", target, worker });
      }
    }
    const nobody = (await (await requestCall("echo", { args: { tag: "nobody" }, target: "mars", wait: false })).json()) as { call: Call };
    // A later call that every worker could see ran: they looked at the older one first and left it.
    const later = (await (await requestCall("echo", { args: { tag: "later" } })).json()) as { call: Call };
    expect(later.call.status).toBe("succeeded");
    expect((await db().call.findUniqueOrThrow({ where: { id: nobody.call.id } })).status).toBe("queued");
    expect(await db().auditEvent.count({ where: { callId: nobody.call.id, action: "call.claimed" } })).toBe(0);
    expect((await requestCall("echo", { args: {}, target: "bad target!" })).status).toBe(400);
  });
});

describe("the workers listing", () => {
  it("leaves out a restarted worker's earlier sessions once they are gone, never a live one", async () => {
    const skills = [{ name: "echo", digest: "e".repeat(64), available: true, reason: null }];
    const first = await registerProtocolWorker("restarted", skills);
    const none = { by: "none" as const, value: null };
    const again = () =>
      first.client.register({ name: "restarted", labels: [], host: "test", version: "test", pid: null, concurrency: 1, sandbox: { requested: "none", mode: "none", warning: null, uid: 65534, limits: { memory: none, pids: none, cpu: none }, kill: "process-group" }, skills });
    const sessionsNamed = async () => {
      const { workers } = (await (await invoke(workersRoute.GET, "/api/v1/workers")).json()) as { workers: WorkerInfo[] };
      return workers.filter((worker) => worker.name === "restarted").map((worker) => [worker.id, worker.state]);
    };
    // Two live sessions of one name: both shown (a real conflict the operator must see).
    const second = await again();
    expect((await sessionsNamed()).sort()).toEqual(
      [
        [second.id, "live"],
        [first.session.id, "live"],
      ].sort(),
    );
    await first.client.goodbye(first.session.id);
    await first.client.goodbye(second.id);
    const third = await again();
    expect(await sessionsNamed()).toEqual([[third.id, "live"]]);
    await first.client.goodbye(third.id);
    // The newest is listed even when stopped.
    expect(await sessionsNamed()).toEqual([[third.id, "stopped"]]);
  });
});

describe("a call's timeline", () => {
  it("holds at most the console's SKILL_STDERR_LIMIT_BYTES whatever its worker sends; the rest is dropped and the call marked truncated", async () => {
    const digest = await digestOf("sleeper");
    const flooder = await registerProtocolWorker("stderr-flooder", [{ name: "sleeper", digest, available: true, reason: null }]);
    const { call } = (await (await requestCall("sleeper", { args: {}, wait: false, target: "stderr-flooder" })).json()) as { call: Call };
    const claim = await flooder.client.claim(flooder.session.id, 4, flooder.session.pollMs, AbortSignal.timeout(10_000));
    expect(claim.calls.map((assignment) => assignment.callId)).toEqual([call.id]);
    const limit = config().stderrLimitBytes;
    const line = "x".repeat(60_000);
    const perReport = 100;
    const reports = Math.ceil((limit * 1.5) / (perReport * line.length));
    let seq = 0;
    for (let report = 0; report < reports; report++) {
      const events = Array.from({ length: perReport }, () => ({ seq: ++seq, at: new Date().toISOString(), stream: "stderr" as const, line }));
      await flooder.client.sendEvents(flooder.session.id, call.id, { events });
    }
    const finish: FinishReport = { status: "succeeded", exitCode: 0, result: "{}", error: null, durationMs: 1, stderrTruncated: false, events: [{ seq: ++seq, at: new Date().toISOString(), stream: "stderr", line }] };
    await flooder.client.finish(flooder.session.id, call.id, finish);
    const stored = await db().callEvent.findMany({ where: { callId: call.id }, select: { line: true } });
    const bytes = stored.reduce((sum, event) => sum + event.line.length, 0);
    expect(bytes).toBeLessThanOrEqual(limit + 64 * 1024);
    expect(bytes).toBeGreaterThan(limit - line.length);
    expect(await db().call.findUniqueOrThrow({ where: { id: call.id } })).toMatchObject({ stderrBytes: bytes, stderrTruncated: true, status: "succeeded" });
  }, 60_000);
});

describe("a call's timeline, truncated before its end", () => {
  it("stays marked truncated when its finish drops nothing and its worker truncated nothing", async () => {
    const digest = await digestOf("sleeper");
    const flooder = await registerProtocolWorker("early-flooder", [{ name: "sleeper", digest, available: true, reason: null }]);
    const { call } = (await (await requestCall("sleeper", { args: {}, wait: false, target: "early-flooder" })).json()) as { call: Call };
    const claim = await flooder.client.claim(flooder.session.id, 4, flooder.session.pollMs, AbortSignal.timeout(10_000));
    expect(claim.calls.map((assignment) => assignment.callId)).toEqual([call.id]);
    const line = "x".repeat(60_000);
    const reports = Math.ceil((config().stderrLimitBytes * 1.5) / (100 * line.length));
    let seq = 0;
    for (let report = 0; report < reports; report++) {
      await flooder.client.sendEvents(flooder.session.id, call.id, { events: Array.from({ length: 100 }, () => ({ seq: ++seq, at: new Date().toISOString(), stream: "stderr" as const, line })) });
    }
    expect(await db().call.findUniqueOrThrow({ where: { id: call.id }, select: { stderrTruncated: true } })).toEqual({ stderrTruncated: true });
    const answer = (await flooder.client.finish(flooder.session.id, call.id, { status: "succeeded", exitCode: 0, result: "{}", error: null, durationMs: 1, stderrTruncated: false, events: [] })) as unknown as { call: Call };
    expect(answer.call.stderrTruncated).toBe(true);
    expect(await db().call.findUniqueOrThrow({ where: { id: call.id }, select: { stderrTruncated: true, status: true } })).toEqual({ stderrTruncated: true, status: "succeeded" });
  }, 60_000);
});

describe("sessions of one worker token", () => {
  it(`may be at most ${LIVE_SESSIONS_PER_TOKEN} live at once: the next registration is refused 409 before its body is read`, async () => {
    const first = await registerProtocolWorker("flood-0", []);
    const none = { by: "none" as const, value: null };
    const register = (name: string) =>
      first.client.register({ name, labels: [], host: "test", version: "test", pid: null, concurrency: 1, sandbox: { requested: "none", mode: "none", warning: null, uid: 65534, limits: { memory: none, pids: none, cpu: none }, kill: "process-group" }, skills: [] });
    const sessions = [first.session.id];
    for (let i = 1; i < LIVE_SESSIONS_PER_TOKEN; i++) sessions.push((await register(`flood-${i}`)).id);
    await expect(register("flood-extra")).rejects.toMatchObject({
      status: 409,
      message: `worker token flood-0 already has ${LIVE_SESSIONS_PER_TOKEN} live worker sessions; at most ${LIVE_SESSIONS_PER_TOKEN} may be live at once (stop one, or give each host a token of its own)`,
    });
    await first.client.goodbye(sessions[0]!);
    expect((await register("flood-extra")).name).toBe("flood-extra");
    for (const id of sessions.slice(1)) await first.client.goodbye(id);
  });
});

describe("revoking a worker token", () => {
  it("ends its workers' running calls interrupted and cuts the worker off", async () => {
    const worker = await startTestWorker({ WORKER_NAME: "doomed-by-revoke", WORKER_LABELS: "revoke" });
    const { call } = (await (await requestCall("sleeper", { args: {}, target: "revoke", wait: false })).json()) as { call: Call };
    await waitForStatus(call.id, ["running"]);
    const session = await db().worker.findFirstOrThrow({ where: { name: "doomed-by-revoke", stoppedAt: null } });
    const response = await invoke(tokenRoute.DELETE, `/api/v1/worker-tokens/${session.tokenId}`, { method: "DELETE", params: { id: session.tokenId } });
    expect(response.status).toBe(200);
    const ended = await db().call.findUniqueOrThrow({ where: { id: call.id } });
    expect(ended).toMatchObject({ status: "interrupted", error: "worker token doomed-by-revoke was revoked while the call ran" });
    expect((await db().worker.findUniqueOrThrow({ where: { id: session.id } })).stoppedAt).not.toBeNull();
    // The worker notices at its next request and stops its process.
    await expect.poll(() => worker.runningIds().length, { timeout: 10_000 }).toBe(0);
    await reloadTestConsole();
  });
});

describe("a worker that must sandbox but has no bubblewrap", () => {
  it("fails every call with a message naming the Debian package, and the Workers page shows why", async () => {
    await startTestWorker({ WORKER_NAME: "no-bwrap", WORKER_LABELS: "nobwrap", SKILL_SANDBOX: "bwrap" }, { bwrapCandidates: ["/nonexistent/bwrap"] });
    const { call } = (await (await requestCall("echo", { args: { tag: "nobwrap" }, target: "nobwrap" })).json()) as { call: Call };
    expect(call.status).toBe("failed");
    expect(call.error).toMatch(/bubblewrap/);
    expect(fs.existsSync(path.join(markers, "ran-nobwrap"))).toBe(false);
    const { workers } = (await (await invoke(workersRoute.GET, "/api/v1/workers")).json()) as { workers: WorkerInfo[] };
    expect(workers.find((worker) => worker.name === "no-bwrap")?.sandbox).toMatchObject({ requested: "bwrap", mode: "bwrap", warning: expect.stringMatching(/bubblewrap/) });
  });

  it("under SKILL_SANDBOX=none runs calls with the warning on the call and on the Workers page", async () => {
    await startTestWorker({ WORKER_NAME: "unsandboxed", WORKER_LABELS: "nosandbox", SKILL_SANDBOX: "none" });
    const { call } = (await (await requestCall("echo", { args: { tag: "unsandboxed" }, target: "nosandbox" })).json()) as { call: Call };
    expect(call.status).toBe("succeeded");
    expect(call.sandbox).toMatchObject({ mode: "none", warning: expect.stringMatching(/^SKILL_SANDBOX=none: calls run unsandboxed as /) });
    const { workers } = (await (await invoke(workersRoute.GET, "/api/v1/workers")).json()) as { workers: WorkerInfo[] };
    expect(workers.find((worker) => worker.name === "unsandboxed")?.sandbox).toMatchObject({ mode: "none", warning: expect.stringMatching(/^SKILL_SANDBOX=none/) });
  });
});

describe("a worker without the whole sandbox", () => {
  it("takes an untargeted call only when no live fully sandboxed worker holds the same copy; a call naming it runs there", async () => {
    await stopTestWorkers();
    await startTestWorker({ WORKER_NAME: "boxed", SKILL_SANDBOX: "bwrap" });
    await startTestWorker({ WORKER_NAME: "open", WORKER_LABELS: "open", SKILL_SANDBOX: "none" });
    for (let round = 0; round < 6; round++) {
      const { call } = (await (await requestCall("hello", { args: {} })).json()) as { call: Call };
      expect(call, call.error ?? "").toMatchObject({ status: "succeeded", worker: "boxed" });
    }
    const { call: chosen } = (await (await requestCall("hello", { args: {}, target: "open" })).json()) as { call: Call };
    expect(chosen).toMatchObject({ status: "succeeded", worker: "open", sandbox: { mode: "none" } });
    // A weaker worker that answers to the sandboxed worker's name (names and labels are self-reported) does not take its calls.
    await startTestWorker({ WORKER_NAME: "boxed", WORKER_LABELS: "boxed", SKILL_SANDBOX: "none", WORKER_STATE_DIR: path.join(testConsole.dir, "impostor-state") });
    for (let round = 0; round < 6; round++) {
      const { call } = (await (await requestCall("hello", { args: {}, target: "boxed" })).json()) as { call: Call };
      expect(call, call.error ?? "").toMatchObject({ status: "succeeded", worker: "boxed", sandbox: { mode: "bwrap" } });
    }
    // With the sandboxed worker gone, the unsandboxed one is what there is (SKILL_SANDBOX=auto on a host without bwrap).
    await stopTestWorkers();
    await startTestWorker({ WORKER_NAME: "open-only", SKILL_SANDBOX: "none" });
    const { call: fallback } = (await (await requestCall("hello", { args: {} })).json()) as { call: Call };
    expect(fallback).toMatchObject({ status: "succeeded", worker: "open-only" });
  });
});

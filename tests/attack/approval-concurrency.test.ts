import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { interruptLapsedCalls } from "@/lib/server/calls/interrupt-calls";
import { db } from "@/lib/server/db";
import { config } from "@/lib/server/env";
import type { Call } from "@/lib/types/call";
import { registerProtocolWorker } from "../helpers/protocol-worker";
import { setUpTestConsole, writeSkill, type TestConsole } from "../helpers/test-console";
import { startTestWorker, testWorkers, useOwnWorkers } from "../helpers/test-worker";
import { createPerson, signIn, type TestPerson } from "../helpers/test-people";
import { approvalOf, createPersonaRow, errorOf, requestCall, requestWaitingCall, sign, waitForStatus } from "../api/approvals-fixtures";

// Every transition is a compare-and-set, so the call runs exactly once after the second signature, however
// many sign requests race (DESIGN.md "Dual-sign rules"), and a claimed call whose worker died is never re-run.

let testConsole: TestConsole;
let markerDir: string;
let requester: TestPerson;
let approvers: TestPerson[];

function runLines(): string[] {
  const file = path.join(markerDir, "wiper.runs");
  return fs.existsSync(file) ? fs.readFileSync(file, "utf8").split("\n").filter(Boolean) : [];
}

beforeAll(async () => {
  testConsole = await setUpTestConsole({ MARKER_DIR: "", SKILL_MAX_CONCURRENT_CALLS: "1" });
  markerDir = path.join(testConsole.dir, "markers");
  fs.mkdirSync(markerDir);
  process.env.MARKER_DIR = markerDir;
  writeSkill(
    testConsole.root,
    "wiper",
    { name: "wiper", class: "dangerous", env_allow: ["MARKER_DIR"], schema: { type: "object", properties: { round: { type: "integer" } } } },
    'args=$(cat); echo "$args" >> "$MARKER_DIR/wiper.runs"; echo \'{"wiped": true}\'',
  );
  writeSkill(testConsole.root, "blocker", { name: "blocker", env_allow: ["MARKER_DIR"] }, 'while [ ! -e "$MARKER_DIR/release" ]; do sleep 0.02; done; echo "{}"');
  await createPersonaRow("dual", "dual-sign-required");
  requester = await createPerson("operator");
  approvers = [await createPerson("approver"), await createPerson("approver"), await createPerson("admin")];
});

describe("exactly once under concurrent signers", () => {
  it.each([1, 2, 3])("round %i: 30 concurrent sign requests from three approvers (two sessions each) start one execution", async (round) => {
    const { call, approvalId } = await requestWaitingCall("wiper", "dual", requester.headers, { round });
    const sessions = await Promise.all(approvers.map(async (person) => [person.headers, await signIn(person.email, person.password)]));
    const requests = Array.from({ length: 30 }, (_, index) => ({ person: approvers[index % 3]!, headers: sessions[index % 3]![index % 2]! }));
    const responses = await Promise.all(requests.map(async ({ person, headers }) => {
      const response = await sign(approvalId!, headers);
      return { person: person.email, status: response.status, body: (await response.json()) as { error?: { code: string; message: string } } };
    }));

    const winners = responses.filter((response) => response.status === 200);
    expect(winners).toHaveLength(2);
    expect(new Set(winners.map((winner) => winner.person)).size).toBe(2);
    const refusals = responses.filter((response) => response.status !== 200);
    expect(refusals).toHaveLength(28);
    for (const refusal of refusals) {
      expect(refusal.status).toBe(409);
      expect([`you already signed approval ${approvalId}`, `approval ${approvalId} is approved, not pending`]).toContain(refusal.body.error?.message);
    }
    expect(await waitForStatus(call.id, ["succeeded", "failed"])).toBe("succeeded");
    expect(runLines().filter((line) => line === JSON.stringify({ round }))).toHaveLength(1);
    expect(await db().auditEvent.count({ where: { callId: call.id, action: "call.started" } })).toBe(1);
    expect(await db().auditEvent.count({ where: { callId: call.id, action: "approval.signed" } })).toBe(2);
    expect(await db().auditEvent.count({ where: { callId: call.id, action: "approval.approved" } })).toBe(1);
    expect(await db().approvalSignature.count({ where: { approvalId: approvalId! } })).toBe(2);
  });
});

describe("a claimed call whose worker died", () => {
  it("is ended interrupted once its lease lapses and never run, by that worker or any other", async () => {
    await Promise.all(testWorkers().map((worker) => worker.stop()));
    useOwnWorkers();
    const { call, approvalId } = await requestWaitingCall("wiper", "dual", requester.headers, { round: 99 });
    expect((await sign(approvalId!, approvers[0]!.headers)).status).toBe(200);
    expect(await approvalOf(await sign(approvalId!, approvers[1]!.headers))).toMatchObject({ status: "approved" });
    expect((await db().call.findUniqueOrThrow({ where: { id: call.id } })).status).toBe("queued");

    // A worker holding the approved digest claims it, then dies (it never reports nor renews).
    const stored = await db().call.findUniqueOrThrow({ where: { id: call.id } });
    const doomed = await registerProtocolWorker("doomed", [{ name: "wiper", digest: stored.skillDigest, available: true, reason: null }]);
    const claim = await doomed.client.claim(doomed.session.id, 1, doomed.session.pollMs, AbortSignal.timeout(10_000));
    expect(claim.calls.map((assignment) => assignment.callId)).toEqual([call.id]);
    await db().call.update({ where: { id: call.id }, data: { leaseUntil: new Date(Date.now() - 1000) } });
    // A lease past and a worker silent for a whole lease since its claim (a worker still calling would be spared).
    const ended = await interruptLapsedCalls(new Date(Date.now() + config().leaseMs + 1000));
    expect(ended.map((row) => row.id)).toEqual([call.id]);
    expect(await db().call.findUniqueOrThrow({ where: { id: call.id } })).toMatchObject({ status: "interrupted", error: "the worker doomed stopped renewing its lease (it stopped, was killed or lost the console)" });

    // A healthy worker comes up and runs new calls, never this one.
    await startTestWorker({ WORKER_NAME: "healthy" });
    const blocker = (await (await requestCall("blocker", { args: {}, wait: false })).json()) as { call: Call };
    fs.writeFileSync(path.join(markerDir, "release"), "");
    expect(await waitForStatus(blocker.call.id, ["succeeded"])).toBe("succeeded");
    expect(runLines().filter((line) => line === JSON.stringify({ round: 99 }))).toHaveLength(0);
    expect((await db().call.findUniqueOrThrow({ where: { id: call.id } })).status).toBe("interrupted");
    expect(await db().auditEvent.count({ where: { callId: call.id, action: "call.claimed" } })).toBe(1);
    expect(await db().auditEvent.count({ where: { callId: call.id, action: "call.started" } })).toBe(0);
    expect(await db().auditEvent.findMany({ where: { callId: call.id, action: "call.interrupted" }, select: { actor: true } })).toEqual([{ actor: "system" }]);
    // The dead worker's late report is refused: the call is no longer its own.
    await expect(doomed.client.finish(doomed.session.id, call.id, { status: "succeeded", exitCode: 0, result: "{}", error: null, durationMs: 1, stderrTruncated: false, events: [] })).rejects.toMatchObject({ status: 409 });
    const again = await sign(approvalId!, approvers[2]!.headers);
    expect(again.status).toBe(409);
    expect(await errorOf(again)).toEqual({ code: "conflict", message: `approval ${approvalId} is approved, not pending` });
    expect(await interruptLapsedCalls()).toEqual([]);
  });
});

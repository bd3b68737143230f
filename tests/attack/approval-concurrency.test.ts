import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { recoverInterruptedCalls } from "@/lib/server/calls/call-lease";
import { db } from "@/lib/server/db";
import type { Call } from "@/lib/types/call";
import { setUpTestConsole, writeSkill, type TestConsole } from "../helpers/test-console";
import { createPerson, signIn, type TestPerson } from "../helpers/test-people";
import { approvalOf, createPersonaRow, errorOf, requestCall, requestWaitingCall, sign, waitForStatus } from "../api/approvals-fixtures";

// Every transition is a compare-and-set, so the call runs exactly once after the second signature, however
// many sign requests race (DESIGN.md "Dual-sign rules"), and a claimed call whose console died is never re-run.

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

describe("a claimed call whose console died", () => {
  it("is marked interrupted by lease recovery and never run, even when its slot frees up later", async () => {
    fs.rmSync(path.join(markerDir, "release"), { force: true });
    const blocker = (await (await requestCall("blocker", { args: {}, wait: false })).json()) as { call: Call };
    await waitForStatus(blocker.call.id, ["running"]);
    const { call, approvalId } = await requestWaitingCall("wiper", "dual", requester.headers, { round: 99 });
    expect((await sign(approvalId!, approvers[0]!.headers)).status).toBe(200);
    expect(await approvalOf(await sign(approvalId!, approvers[1]!.headers))).toMatchObject({ status: "approved" });
    expect((await db().call.findUniqueOrThrow({ where: { id: call.id } })).status).toBe("queued");

    // The claimed call now belongs to a console that stopped renewing its lease (as after a crash).
    await db().call.update({ where: { id: call.id }, data: { ownerId: "a-console-that-died", leaseUntil: new Date(Date.now() - 1000) } });
    const recovered = await recoverInterruptedCalls();
    expect(recovered.map((entry) => entry.id)).toEqual([call.id]);
    expect(await db().call.findUniqueOrThrow({ where: { id: call.id } })).toMatchObject({ status: "interrupted", error: "the console running this call stopped before it ended" });

    fs.writeFileSync(path.join(markerDir, "release"), "");
    expect(await waitForStatus(blocker.call.id, ["succeeded"])).toBe("succeeded");
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(runLines().filter((line) => line === JSON.stringify({ round: 99 }))).toHaveLength(0);
    expect((await db().call.findUniqueOrThrow({ where: { id: call.id } })).status).toBe("interrupted");
    expect(await db().auditEvent.count({ where: { callId: call.id, action: "call.started" } })).toBe(0);
    expect(await db().auditEvent.findMany({ where: { callId: call.id, action: "call.interrupted" }, select: { actor: true, details: true } })).toEqual([
      { actor: "system", details: JSON.stringify({ group: "none", previousStatus: "queued" }) },
    ]);
    const again = await sign(approvalId!, approvers[2]!.headers);
    expect(again.status).toBe(409);
    expect(await errorOf(again)).toEqual({ code: "conflict", message: `approval ${approvalId} is approved, not pending` });
    expect(await recoverInterruptedCalls()).toEqual([]);
  });
});

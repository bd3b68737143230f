import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import * as approvalsRoute from "@/app/api/v1/approvals/route";
import * as cancelRoute from "@/app/api/v1/calls/[id]/cancel/route";
import * as userRoute from "@/app/api/v1/users/[id]/route";
import { expireDueApprovals } from "@/lib/server/approvals/expire-approvals";
import { db } from "@/lib/server/db";
import type { Approval } from "@/lib/types/approval";
import type { Call } from "@/lib/types/call";
import { invoke } from "../helpers/route-client";
import { setUpTestConsole, writeSkill, type TestConsole } from "../helpers/test-console";
import { createPerson, signIn, type TestPerson } from "../helpers/test-people";
import { approvalOf, auditActions, createPersonaRow, createToken, deny, errorOf, requestWaitingCall, sign, waitForStatus } from "./approvals-fixtures";

let testConsole: TestConsole;
let markerDir: string;
let requester: TestPerson;
let approverA: TestPerson;
let approverB: TestPerson;
let approverC: TestPerson;
let operator: TestPerson;
/** The approvals the tests below take to "approved" (recorded as soon as each is requested). */
const approvedIds: string[] = [];

function runs(): number {
  const file = path.join(markerDir, "wiper.runs");
  return fs.existsSync(file) ? fs.readFileSync(file, "utf8").split("\n").filter(Boolean).length : 0;
}

async function listApprovals(query = ""): Promise<Approval[]> {
  const response = await invoke(approvalsRoute.GET, `/api/v1/approvals${query}`, { as: operator.headers });
  expect(response.status).toBe(200);
  return ((await response.json()) as { approvals: Approval[] }).approvals;
}

beforeAll(async () => {
  testConsole = await setUpTestConsole({ MARKER_DIR: "" });
  markerDir = path.join(testConsole.dir, "markers");
  fs.mkdirSync(markerDir);
  process.env.MARKER_DIR = markerDir;
  writeSkill(
    testConsole.root,
    "wiper",
    { name: "wiper", class: "dangerous", env_allow: ["MARKER_DIR"], schema: { type: "object", properties: { disk: { type: "string" } } } },
    'echo run >> "$MARKER_DIR/wiper.runs"; echo "wiping" >&2; echo \'{"wiped": true}\'',
  );
  await createPersonaRow("dual", "dual-sign-required");
  requester = await createPerson("approver");
  approverA = await createPerson("approver");
  approverB = await createPerson("approver");
  approverC = await createPerson("admin");
  operator = await createPerson("operator");
});

describe("dual-sign approvals", () => {
  it("lists the pending approval with its call, exact args and digest input; the requester cannot sign", async () => {
    const { call, approvalId } = await requestWaitingCall("wiper", "dual", requester.headers, { disk: "/dev/sdz" });
    const [listed] = await listApprovals("?status=pending");
    expect(listed).toMatchObject({
      id: approvalId,
      callId: call.id,
      status: "pending",
      digest: call.digest,
      requestedBy: requester.email,
      signatures: [],
      required: 2,
      decidedBy: null,
      reason: null,
      skillClass: "dangerous",
      call: { id: call.id, skill: "wiper", persona: "dual", args: { disk: "/dev/sdz" }, status: "awaiting_approval" },
      digestInput: { skill: "wiper", args: { disk: "/dev/sdz" }, skillDigest: call.skillDigest },
      // What the skill may reach when sandboxed, and how many files of its folder the digest covers.
      sandbox: { read: [], write: [], network: true, devices: [], hostPids: false },
      skillFiles: 2,
    });
    expect(call.skillDigest).toMatch(/^[0-9a-f]{64}$/);
    const own = await sign(approvalId!, requester.headers);
    expect(own.status).toBe(403);
    expect(await errorOf(own)).toEqual({ code: "forbidden", message: "the requester cannot sign their own call" });
  });

  it("takes two distinct approvers, each once whatever their sessions, then runs the call exactly once", async () => {
    const { call, approvalId } = await requestWaitingCall("wiper", "dual", requester.headers);
    approvedIds.push(approvalId!);
    const first = await sign(approvalId!, approverA.headers);
    expect(first.status).toBe(200);
    expect(await approvalOf(first)).toMatchObject({ status: "pending", signatures: [{ by: approverA.email }] });

    const secondSession = await signIn(approverA.email, approverA.password);
    for (const headers of [approverA.headers, secondSession]) {
      const again = await sign(approvalId!, headers);
      expect(again.status).toBe(409);
      expect(await errorOf(again)).toEqual({ code: "conflict", message: `you already signed approval ${approvalId}` });
    }
    expect(await db().approvalSignature.count({ where: { approvalId: approvalId! } })).toBe(1);
    // Both attempts are refused attempts on the trail (the second within the repeat window is counted, not written yet).
    const refused = await db().auditEvent.findMany({ where: { action: "access.refused", actor: approverA.email, approvalId } });
    expect(refused.map((entry) => (JSON.parse(entry.details) as { code: string; reason: string }).reason)).toEqual([`you already signed approval ${approvalId}`]);

    const byOperator = await sign(approvalId!, operator.headers);
    expect(byOperator.status).toBe(403);
    expect(await errorOf(byOperator)).toEqual({ code: "forbidden", message: `this needs the approver role; ${operator.email} is an operator` });
    const token = await createToken("dual", approverB.headers);
    const byToken = await sign(approvalId!, token);
    expect(byToken.status).toBe(403);
    expect(await errorOf(byToken)).toEqual({ code: "forbidden", message: "a person must sign approvals; API tokens cannot" });
    expect(runs()).toBe(0);

    const second = await sign(approvalId!, approverB.headers);
    expect(second.status).toBe(200);
    expect(await approvalOf(second)).toMatchObject({ status: "approved", decidedBy: approverB.email, signatures: [{ by: approverA.email }, { by: approverB.email }] });
    expect(await waitForStatus(call.id, ["succeeded", "failed"])).toBe("succeeded");
    expect(runs()).toBe(1);

    const late = await sign(approvalId!, approverC.headers);
    expect(late.status).toBe(409);
    expect(await errorOf(late)).toEqual({ code: "conflict", message: `approval ${approvalId} is approved, not pending` });
    expect(runs()).toBe(1);
    expect(await auditActions(call.id)).toEqual([
      "call.requested",
      "approval.requested",
      "approval.signed",
      "approval.signed",
      "approval.approved",
      "call.claimed",
      "call.started",
      "call.finished",
    ]);
    const signed = await db().auditEvent.findMany({ where: { callId: call.id, action: "approval.signed" }, orderBy: { id: "asc" } });
    expect(signed.map((entry) => [entry.actor, entry.digest, entry.approvalId])).toEqual([
      [approverA.email, call.digest, approvalId],
      [approverB.email, call.digest, approvalId],
    ]);
  });

  it("counts a signature only while its signer is still an approver", async () => {
    const demoted = await createPerson("approver");
    const { call, approvalId } = await requestWaitingCall("wiper", "dual", requester.headers);
    approvedIds.push(approvalId!);
    expect((await sign(approvalId!, demoted.headers)).status).toBe(200);
    const user = await db().user.findUniqueOrThrow({ where: { email: demoted.email } });
    const patched = await invoke(userRoute.PATCH, `/api/v1/users/${user.id}`, { method: "PATCH", body: { role: "operator" }, params: { id: user.id } });
    expect(patched.status).toBe(200);
    const afterB = await sign(approvalId!, approverB.headers);
    expect(await approvalOf(afterB)).toMatchObject({ status: "pending", signatures: [{ by: approverB.email }] });
    expect(runs()).toBe(1);
    const afterC = await sign(approvalId!, approverC.headers);
    expect(await approvalOf(afterC)).toMatchObject({ status: "approved", signatures: [{ by: approverB.email }, { by: approverC.email }] });
    expect(await waitForStatus(call.id, ["succeeded"])).toBe("succeeded");
    expect(runs()).toBe(2);
  });

  it("voids a demoted signer's signature for good: re-promoted, it still does not count, nor can they sign again", async () => {
    const flipped = await createPerson("approver");
    const { call, approvalId } = await requestWaitingCall("wiper", "dual", requester.headers);
    expect((await sign(approvalId!, flipped.headers)).status).toBe(200);
    const user = await db().user.findUniqueOrThrow({ where: { email: flipped.email } });
    const setRole = (role: string) => invoke(userRoute.PATCH, `/api/v1/users/${user.id}`, { method: "PATCH", body: { role }, params: { id: user.id } });
    expect((await setRole("operator")).status).toBe(200);
    expect((await setRole("approver")).status).toBe(200);
    const [voided] = await db().auditEvent.findMany({ where: { action: "approval.signatures_voided" }, orderBy: { id: "desc" }, take: 1 });
    expect(JSON.parse(voided!.details)).toEqual({ email: flipped.email, reason: `${flipped.email} was demoted from approver to operator`, approvals: [approvalId] });
    const again = await sign(approvalId!, flipped.headers);
    expect(again.status).toBe(409);
    expect(await errorOf(again)).toEqual({ code: "conflict", message: `your signature on approval ${approvalId} was voided (${flipped.email} was demoted from approver to operator); it cannot be given again` });
    // The attempt is on the audit trail: who, what and why.
    const [refused] = await db().auditEvent.findMany({ where: { action: "access.refused", actor: flipped.email, approvalId }, orderBy: { id: "desc" }, take: 1 });
    expect(JSON.parse(refused!.details)).toEqual({
      method: "POST",
      path: `/api/v1/approvals/${approvalId}/sign`,
      code: "conflict",
      reason: `your signature on approval ${approvalId} was voided (${flipped.email} was demoted from approver to operator); it cannot be given again`,
      address: expect.any(String),
    });
    // One more signature would have approved it if the old one counted again.
    const afterB = await sign(approvalId!, approverB.headers);
    expect(await approvalOf(afterB)).toMatchObject({ status: "pending", signatures: [{ by: approverB.email }] });
    expect((await db().call.findUniqueOrThrow({ where: { id: call.id } })).status).toBe("awaiting_approval");
  });

  it("never lets the owner of the agent's token sign the agent's call", async () => {
    const token = await createToken("dual", approverA.headers, "night-bot");
    const { call, approvalId } = await requestWaitingCall("wiper", "dual", token);
    expect(call).toMatchObject({ requestedBy: approverA.email, tokenName: "night-bot", status: "awaiting_approval" });
    const own = await sign(approvalId!, approverA.headers);
    expect(own.status).toBe(403);
    expect(await errorOf(own)).toEqual({ code: "forbidden", message: "the requester cannot sign their own call" });
    expect((await sign(approvalId!, approverB.headers)).status).toBe(200);
  });

  it("denies with a reason (terminal): the call ends denied and takes no more signatures", async () => {
    const { call, approvalId } = await requestWaitingCall("wiper", "dual", requester.headers);
    const noReason = await deny(approvalId!, { reason: "  " }, approverA.headers);
    expect(noReason.status).toBe(400);
    expect(await errorOf(noReason)).toEqual({ code: "bad_request", message: "a denial needs a reason" });
    const tooLong = await deny(approvalId!, { reason: "x".repeat(501) }, approverA.headers);
    expect(await errorOf(tooLong)).toEqual({ code: "bad_request", message: "the reason must be at most 500 characters" });
    const byOperator = await deny(approvalId!, { reason: "no" }, operator.headers);
    expect(byOperator.status).toBe(403);
    const response = await deny(approvalId!, { reason: "not during business hours" }, approverA.headers);
    expect(response.status).toBe(200);
    expect(await approvalOf(response)).toMatchObject({ status: "denied", decidedBy: approverA.email, reason: "not during business hours", call: { status: "denied" } });
    expect(await db().call.findUniqueOrThrow({ where: { id: call.id } })).toMatchObject({ status: "denied", error: `denied by ${approverA.email}: not during business hours` });
    const after = await sign(approvalId!, approverB.headers);
    expect(after.status).toBe(409);
    expect(await errorOf(after)).toEqual({ code: "conflict", message: `approval ${approvalId} is denied, not pending` });
    const twice = await deny(approvalId!, { reason: "again" }, approverB.headers);
    expect(twice.status).toBe(409);
    expect(await auditActions(call.id)).toEqual(["call.requested", "approval.requested", "approval.denied"]);
  });

  it("expires a pending approval past its TTL, lazily on read and by the sweep; the call ends expired", async () => {
    const lazy = await requestWaitingCall("wiper", "dual", requester.headers);
    const swept = await requestWaitingCall("wiper", "dual", requester.headers);
    expect((await sign(swept.approvalId!, approverA.headers)).status).toBe(200);
    await db().approval.updateMany({ where: { id: { in: [lazy.approvalId!, swept.approvalId!] } }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const late = await sign(swept.approvalId!, approverB.headers);
    expect(late.status).toBe(409);
    expect(await errorOf(late)).toEqual({ code: "conflict", message: `approval ${swept.approvalId} is expired, not pending` });
    // The sweep (also run by the console's timer every few seconds) expires the one nobody touched.
    await expireDueApprovals();
    const listed = await listApprovals("?status=expired");
    expect(listed.map((approval) => approval.id).sort()).toEqual([lazy.approvalId, swept.approvalId].sort());
    for (const { call, approvalId } of [lazy, swept]) {
      expect(await db().call.findUniqueOrThrow({ where: { id: call.id } })).toMatchObject({ status: "expired", error: "approval expired: no two signatures within 3600 s (APPROVAL_TTL_SECONDS)" });
      expect(await db().auditEvent.count({ where: { approvalId, action: "approval.expired" } })).toBe(1);
    }
    expect(runs()).toBe(2);
  });

  it("lets the requester cancel a call awaiting approval: the approval is denied with who cancelled", async () => {
    const { call, approvalId } = await requestWaitingCall("wiper", "dual", requester.headers);
    const response = await invoke(cancelRoute.POST, `/api/v1/calls/${call.id}/cancel`, { method: "POST", params: { id: call.id }, as: requester.headers });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { call: Call }).call).toMatchObject({ status: "cancelled", error: `cancelled by ${requester.email}` });
    expect(await db().approval.findUniqueOrThrow({ where: { id: approvalId! } })).toMatchObject({ status: "denied", reason: `cancelled by ${requester.email}`, decidedBy: requester.email });
    expect((await sign(approvalId!, approverA.headers)).status).toBe(409);
  });

  it("lists approvals newest first, filtered by status and limit; 400 for an unknown status, 404 for an unknown approval", async () => {
    const all = await listApprovals();
    expect(all.length).toBeGreaterThan(5);
    const created = all.map((approval) => approval.createdAt);
    expect([...created].sort().reverse()).toEqual(created);
    expect(await listApprovals("?limit=2")).toHaveLength(2);
    const [newest] = all;
    expect((await listApprovals(`?callId=${newest!.callId}`)).map((approval) => approval.id)).toEqual([newest!.id]);
    // Exactly the two approvals the tests above approved, each reported as approved.
    const approved = await listApprovals("?status=approved");
    expect(approved.map((approval) => approval.id).sort()).toEqual([...approvedIds].sort());
    expect(approved.map((approval) => approval.status)).toEqual(["approved", "approved"]);
    const bad = await invoke(approvalsRoute.GET, "/api/v1/approvals?status=maybe", { as: operator.headers });
    expect(bad.status).toBe(400);
    expect(await errorOf(bad)).toEqual({ code: "bad_request", message: 'unknown status "maybe"; one of pending, approved, denied, expired, void' });
    expect((await sign("missing", approverA.headers)).status).toBe(404);
    expect((await invoke(approvalsRoute.GET, "/api/v1/approvals", { as: "anonymous" })).status).toBe(401);
  });
});

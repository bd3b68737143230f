/**
 * A signature counts only while its signer holds approver+ (issue 10 point 4). The role is checked when
 * a request is identified; an admin's demotion can land between that check and the signature's write
 * (a reviewer did it with a slow digest check: the demoted approver's signature was stored unvoided and
 * counted after a re-promotion). The signing transaction reads the role again under the write lock;
 * so do a confirmation's and a denial's (a demoted operator must not confirm a mutating call).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { confirmCall } from "@/lib/server/approvals/confirm-call";
import { denyApproval } from "@/lib/server/approvals/deny-approval";
import { signApproval } from "@/lib/server/approvals/sign-approval";
import { db } from "@/lib/server/db";
import type { Identity } from "@/lib/types/identity";
import { setUpTestConsole, writeSkill } from "../helpers/test-console";
import { createPerson, type TestPerson } from "../helpers/test-people";
import { createPersonaRow, requestWaitingCall } from "../api/approvals-fixtures";

let requester: TestPerson;
let signer: TestPerson;

beforeAll(async () => {
  const testConsole = await setUpTestConsole();
  writeSkill(testConsole.root, "wiper", { name: "wiper", class: "dangerous" }, 'echo "{}"');
  writeSkill(testConsole.root, "mover", { name: "mover", class: "mutating" }, 'echo "{}"');
  await createPersonaRow("dual", "dual-sign-required");
  await createPersonaRow("confirming", "mutating-with-confirm");
  requester = await createPerson("approver");
  signer = await createPerson("approver");
});

describe("a signer demoted after their request was identified", () => {
  it("is refused inside the signing transaction, and nothing is stored", async () => {
    const { approvalId } = await requestWaitingCall("wiper", "dual", requester.headers);
    const user = await db().user.findUniqueOrThrow({ where: { email: signer.email } });
    // The identity as the request saw it, before the demotion landed.
    const identified: Identity = { userId: user.id, email: user.email, name: user.name, role: "approver", via: "session", token: null };
    await db().user.update({ where: { id: user.id }, data: { role: "operator" } });
    await expect(signApproval(approvalId!, identified)).rejects.toMatchObject({ code: "forbidden", message: `${signer.email} is no longer an approver; the signature was not recorded` });
    expect(await db().approvalSignature.count({ where: { approvalId: approvalId! } })).toBe(0);
    // Promoted again, the person signs anew (nothing of the refused attempt counts either way).
    await db().user.update({ where: { id: user.id }, data: { role: "approver" } });
    const approval = await signApproval(approvalId!, identified);
    expect(approval.signatures.map((signature) => signature.by)).toEqual([signer.email]);
  });
});

describe("a confirmer or denier demoted after their request was identified", () => {
  it("cannot confirm: the transaction is rolled back, the call still awaits confirmation, and nothing is written", async () => {
    const person = await createPerson("operator");
    const { call } = await requestWaitingCall("mover", "confirming", requester.headers);
    const user = await db().user.findUniqueOrThrow({ where: { email: person.email } });
    const identified: Identity = { userId: user.id, email: user.email, name: user.name, role: "operator", via: "session", token: null };
    await db().user.update({ where: { id: user.id }, data: { role: "viewer" } });
    await expect(confirmCall(call.id, identified, false)).rejects.toMatchObject({ code: "forbidden", message: `${person.email} is no longer an operator; the call was not confirmed` });
    expect(await db().call.findUniqueOrThrow({ where: { id: call.id }, select: { status: true, confirmedBy: true } })).toEqual({ status: "awaiting_confirmation", confirmedBy: null });
    expect(await db().auditEvent.count({ where: { callId: call.id, action: "call.confirmed" } })).toBe(0);
    // Promoted again, the person confirms anew.
    await db().user.update({ where: { id: user.id }, data: { role: "operator" } });
    const { call: confirmed } = await confirmCall(call.id, identified, false);
    expect(confirmed.status).toBe("queued");
  });

  it("cannot deny: the approval stays pending", async () => {
    const person = await createPerson("approver");
    const { approvalId } = await requestWaitingCall("wiper", "dual", requester.headers);
    const user = await db().user.findUniqueOrThrow({ where: { email: person.email } });
    const identified: Identity = { userId: user.id, email: user.email, name: user.name, role: "approver", via: "session", token: null };
    await db().user.update({ where: { id: user.id }, data: { role: "operator" } });
    await expect(denyApproval(approvalId!, identified, "no")).rejects.toMatchObject({ code: "forbidden", message: `${person.email} is no longer an approver; the approval was not denied` });
    expect((await db().approval.findUniqueOrThrow({ where: { id: approvalId! } })).status).toBe("pending");
  });
});

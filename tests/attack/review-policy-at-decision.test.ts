/**
 * A call that waits for a person was allowed by the persona as it was when the call was requested. If
 * an admin then takes that right away (denies the skill, makes the persona read-only, deletes it) —
 * say because an agent using the persona misbehaves — a confirmation or the second signature must not
 * still run what the policy now denies: the stricter of the two policies applies. (A persona made more
 * permissive changes nothing for a waiting call: it still waits for what it was stored waiting for.)
 */
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import * as personaRoute from "@/app/api/v1/personas/[name]/route";
import { db } from "@/lib/server/db";
import { invoke } from "../helpers/route-client";
import { setUpTestConsole, writeSkill, type TestConsole } from "../helpers/test-console";
import { createPerson, type TestPerson } from "../helpers/test-people";
import * as tokenRoute from "@/app/api/v1/tokens/[id]/route";
import * as userRoute from "@/app/api/v1/users/[id]/route";
import { auditActions, confirm, createPersonaRow, createToken, requestWaitingCall, sign } from "../api/approvals-fixtures";

let testConsole: TestConsole;
let markerDir: string;
let requester: TestPerson;
let approverA: TestPerson;
let approverB: TestPerson;

/** The call's life on the audit trail: its `call.*` and `approval.*` entries, oldest first. */
async function lifecycle(callId: string): Promise<string[]> {
  return (await auditActions(callId)).filter((action) => action.startsWith("call.") || action.startsWith("approval."));
}

/** The `actor` and `details` of each audit entry `action` of the call. */
async function auditEntries(callId: string, action: string): Promise<Array<[string, unknown]>> {
  const rows = await db().auditEvent.findMany({ where: { callId, action }, orderBy: { id: "asc" } });
  return rows.map((row) => [row.actor, JSON.parse(row.details)]);
}

function putPersona(name: string, body: unknown): Promise<Response> {
  return invoke(personaRoute.PUT, `/api/v1/personas/${name}`, { method: "PUT", body, params: { name } });
}

beforeAll(async () => {
  testConsole = await setUpTestConsole({ MARKER_DIR: "" });
  markerDir = path.join(testConsole.dir, "markers");
  fs.mkdirSync(markerDir);
  process.env.MARKER_DIR = markerDir;
  writeSkill(testConsole.root, "restart", { name: "restart", class: "mutating", env_allow: ["MARKER_DIR"] }, 'touch "$MARKER_DIR/restart.ran"; echo "{}"');
  writeSkill(testConsole.root, "wiper", { name: "wiper", class: "dangerous", env_allow: ["MARKER_DIR"] }, 'touch "$MARKER_DIR/wiper.ran"; echo "{}"');
  await createPersonaRow("agent-ops", "mutating-with-confirm");
  await createPersonaRow("agent-dual", "dual-sign-required");
  await createPersonaRow("ops", "mutating-with-confirm");
  await createPersonaRow("dual", "dual-sign-required");
  requester = await createPerson("approver");
  approverA = await createPerson("approver");
  approverB = await createPerson("approver");
});

describe("the policy in force when a person decides", () => {
  it("a confirmation does not run a mutating call the persona has since been made read-only for", async () => {
    const { call } = await requestWaitingCall("restart", "agent-ops", requester.headers);
    const changed = await putPersona("agent-ops", { permission_mode: "read-only", skills: { allow: ["*"] } });
    expect(changed.status).toBe(200);
    const response = await confirm(call.id, approverA.headers);
    expect(response.status, await response.clone().text()).toBe(403);
    // Denied in the same transaction that refused the confirmation: it never reached the queue.
    const row = await db().call.findUniqueOrThrow({ where: { id: call.id } });
    expect(row.status).toBe("denied");
    expect(row.error).toMatch(/read-only/);
    expect(await lifecycle(call.id)).toEqual(["call.requested", "call.denied"]);
  });

  it("the second signature does not run a dangerous call whose skill the persona now denies", async () => {
    const { call, approvalId } = await requestWaitingCall("wiper", "agent-dual", requester.headers);
    expect((await sign(approvalId!, approverA.headers)).status).toBe(200);
    const changed = await putPersona("agent-dual", { permission_mode: "dual-sign-required", skills: { allow: ["*"], deny: ["wiper"] } });
    expect(changed.status).toBe(200);
    const response = await sign(approvalId!, approverB.headers);
    expect(response.status, await response.clone().text()).toBe(403);
    expect((await db().call.findUniqueOrThrow({ where: { id: call.id } })).status).toBe("denied");
    const approval = await db().approval.findUniqueOrThrow({ where: { id: approvalId! } });
    expect(approval.status).toBe("denied");
    expect(approval.reason).toMatch(/skills\.deny/);
    expect(await db().auditEvent.count({ where: { callId: call.id, action: "approval.denied", actor: "system" } })).toBe(1);
    expect(await lifecycle(call.id)).toEqual(["call.requested", "approval.requested", "approval.signed", "approval.denied"]);
  });

  it("no confirmation or signature runs a call whose agent's token was revoked meanwhile", async () => {
    const owner = await createPerson("operator");
    const agent = await createToken("dual", owner.headers, "leaky-agent");
    const { call, approvalId } = await requestWaitingCall("wiper", "dual", agent);
    const mutating = await requestWaitingCall("restart", "dual", agent);
    const token = await db().apiToken.findFirstOrThrow({ where: { name: "leaky-agent" } });
    expect((await invoke(tokenRoute.DELETE, `/api/v1/tokens/${token.id}`, { method: "DELETE", params: { id: token.id }, as: owner.headers })).status).toBe(200);
    const first = await sign(approvalId!, approverA.headers);
    expect(first.status, await first.clone().text()).toBe(403);
    expect((await sign(approvalId!, approverB.headers)).status).toBe(409);
    expect((await confirm(mutating.call.id, approverA.headers)).status).toBe(403);
    expect((await db().call.findUniqueOrThrow({ where: { id: call.id } })).status).toBe("denied");
    expect((await db().call.findUniqueOrThrow({ where: { id: mutating.call.id } })).status).toBe("denied");
    expect(await lifecycle(call.id)).toEqual(["call.requested", "approval.requested", "approval.denied"]);
    expect(await lifecycle(mutating.call.id)).toEqual(["call.requested", "call.denied"]);
  });

  it("no confirmation runs a call whose requester was demoted to viewer meanwhile", async () => {
    const demoted = await createPerson("operator");
    const { call } = await requestWaitingCall("restart", "ops", demoted.headers);
    const user = await db().user.findUniqueOrThrow({ where: { email: demoted.email } });
    expect((await invoke(userRoute.PATCH, `/api/v1/users/${user.id}`, { method: "PATCH", body: { role: "viewer" }, params: { id: user.id } })).status).toBe(200);
    const response = await confirm(call.id, approverA.headers);
    const reason = `its requester ${demoted.email} may no longer request calls (viewer)`;
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({ error: { code: "forbidden", message: `call ${call.id} cannot be confirmed: the current policy refuses it (${reason})` } });
    // Denied (by the system, noticed by the confirmer) before anything was queued.
    expect(await db().call.findUniqueOrThrow({ where: { id: call.id } })).toMatchObject({ status: "denied", error: `refused by the current policy: ${reason}` });
    expect(await auditEntries(call.id, "call.denied")).toEqual([["system", { reason, noticedBy: approverA.email }]]);
    expect(await lifecycle(call.id)).toEqual(["call.requested", "call.denied"]);
  });
});

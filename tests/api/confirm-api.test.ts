import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import * as cancelRoute from "@/app/api/v1/calls/[id]/cancel/route";
import * as auditRoute from "@/app/api/v1/audit/route";
import { db } from "@/lib/server/db";
import type { AuditEntry } from "@/lib/types/audit";
import type { Call } from "@/lib/types/call";
import { invoke } from "../helpers/route-client";
import { setUpTestConsole, writeSkill, type TestConsole } from "../helpers/test-console";
import { createPerson, type TestPerson } from "../helpers/test-people";
import { auditActions, confirm, createPersonaRow, createToken, errorOf, requestCall, requestWaitingCall } from "./approvals-fixtures";

let testConsole: TestConsole;
let markerDir: string;
let operator: TestPerson;
let otherOperator: TestPerson;
let viewer: TestPerson;

function runs(skill: string): number {
  const file = path.join(markerDir, `${skill}.runs`);
  return fs.existsSync(file) ? fs.readFileSync(file, "utf8").split("\n").filter(Boolean).length : 0;
}

beforeAll(async () => {
  testConsole = await setUpTestConsole({ MARKER_DIR: "" });
  markerDir = path.join(testConsole.dir, "markers");
  fs.mkdirSync(markerDir);
  process.env.MARKER_DIR = markerDir;
  for (const [name, cls] of [["reader", "safe"], ["writer", "mutating"], ["wiper", "dangerous"]] as const) {
    writeSkill(
      testConsole.root,
      name,
      { name, class: cls, category: "ops", env_allow: ["MARKER_DIR"], schema: { type: "object", properties: { n: { type: "integer" } }, additionalProperties: false } },
      `echo run >> "$MARKER_DIR/${name}.runs"; echo '{"ok": true}'`,
    );
  }
  await createPersonaRow("ro", "read-only");
  await createPersonaRow("confirmer", "mutating-with-confirm");
  await createPersonaRow("dual", "dual-sign-required");
  await createPersonaRow("only_reader", "dual-sign-required", ["reader"]);
  await createPersonaRow("no_wiper", "dual-sign-required", ["category:ops"], ["wiper"]);
  operator = await createPerson("operator");
  otherOperator = await createPerson("operator");
  viewer = await createPerson("viewer");
});

describe("the policy decides every call (DESIGN.md table, via personas)", () => {
  it.each(["ro", "confirmer", "dual"])("runs a safe skill at once under %s", async (persona) => {
    const response = await requestCall("reader", { args: {}, persona }, operator.headers);
    expect(response.status).toBe(200);
    const { call } = (await response.json()) as { call: Call };
    expect(call).toMatchObject({ status: "succeeded", persona, requestedBy: operator.email, tokenName: null, confirmedBy: null });
    expect(call.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(await auditActions(call.id)).toEqual(["call.requested", "call.claimed", "call.started", "call.finished"]);
  });

  it.each([
    ["writer", "ro", "writer: persona ro (read-only): a read-only persona may not run mutating skills"],
    ["wiper", "ro", "wiper: persona ro (read-only): a read-only persona may not run dangerous skills"],
    ["wiper", "confirmer", "wiper: persona confirmer (mutating-with-confirm): a mutating-with-confirm persona may not run dangerous skills"],
    ["writer", "only_reader", "writer: writer is not in persona only_reader's skills.allow"],
    ["wiper", "no_wiper", 'wiper: persona no_wiper denies wiper (skills.deny: "wiper")'],
  ])("denies %s under %s with 403 forbidden and the reason, storing and starting nothing", async (skill, persona, message) => {
    const before = await db().call.count();
    const response = await requestCall(skill, { args: {}, persona }, operator.headers);
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({ error: { code: "forbidden", message } });
    expect(await db().call.count()).toBe(before);
    expect(runs(skill)).toBe(0);
  });

  it("validates args before the policy, and refuses an unknown persona with 400", async () => {
    const invalid = await requestCall("wiper", { args: { n: "x" }, persona: "ro" }, operator.headers);
    expect(invalid.status).toBe(400);
    expect((await errorOf(invalid)).code).toBe("invalid_args");
    const unknown = await requestCall("reader", { args: {}, persona: "ghost" }, operator.headers);
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toEqual({ error: { code: "bad_request", message: 'unknown persona "ghost"' } });
  });

  it("runs a call naming no persona under default, and refuses viewers (403)", async () => {
    const response = await requestCall("reader", { args: {} }, operator.headers);
    expect(((await response.json()) as { call: Call }).call.persona).toBe("default");
    const refused = await requestCall("reader", { args: {} }, viewer.headers);
    expect(refused.status).toBe(403);
    expect(await errorOf(refused)).toEqual({ code: "forbidden", message: `this needs the operator role; ${viewer.email} is a viewer` });
  });

  it("stores a dual-sign call awaiting_approval with a pending approval (202)", async () => {
    const { call, approvalId } = await requestWaitingCall("wiper", "dual", operator.headers);
    expect(call).toMatchObject({ status: "awaiting_approval", persona: "dual", requestedBy: operator.email });
    const approval = await db().approval.findUniqueOrThrow({ where: { id: approvalId! } });
    expect(approval).toMatchObject({ status: "pending", required: 2, digest: call.digest, requestedBy: operator.email });
    expect(approval.expiresAt.getTime() - approval.createdAt.getTime()).toBeGreaterThanOrEqual(3600_000 - 1000);
    expect(await auditActions(call.id)).toEqual(["call.requested", "approval.requested"]);
    expect(runs("wiper")).toBe(0);
  });
});

describe("confirmation of mutating calls", () => {
  it("stores the call awaiting_confirmation (202); the requester's confirm runs it once (200)", async () => {
    const { call } = await requestWaitingCall("writer", "confirmer", operator.headers, { n: 1 });
    expect(call).toMatchObject({ status: "awaiting_confirmation", args: { n: 1 }, startedAt: null });
    expect(runs("writer")).toBe(0);
    const response = await confirm(call.id, operator.headers);
    expect(response.status).toBe(200);
    const { call: done } = (await response.json()) as { call: Call };
    expect(done).toMatchObject({ id: call.id, status: "succeeded", confirmedBy: operator.email, result: { ok: true } });
    expect(runs("writer")).toBe(1);
    const again = await confirm(call.id, otherOperator.headers);
    expect(again.status).toBe(409);
    expect(await errorOf(again)).toEqual({ code: "conflict", message: `call ${call.id} is succeeded, not awaiting confirmation` });
    expect(runs("writer")).toBe(1);
    expect(await auditActions(call.id)).toEqual(["call.requested", "call.confirmed", "call.claimed", "call.started", "call.finished"]);
    const audit = (await (await invoke(auditRoute.GET, `/api/v1/audit?callId=${call.id}`, { as: viewer.headers })).json()) as { entries: AuditEntry[] };
    expect(audit.entries.map((entry) => [entry.action, entry.actor])).toEqual([
      ["call.finished", "system"],
      ["call.started", "system"],
      ["call.claimed", "system"],
      ["call.confirmed", operator.email],
      ["call.requested", operator.email],
    ]);
    expect(audit.entries.every((entry) => entry.digest === call.digest && entry.skill === "writer")).toBe(true);
  });

  it("answers 202 at once when the confirmation says wait: false, and runs it", async () => {
    const { call } = await requestWaitingCall("writer", "confirmer", operator.headers);
    const before = runs("writer");
    const response = await confirm(call.id, otherOperator.headers, { wait: false });
    expect(response.status).toBe(202);
    expect(["queued", "running", "succeeded"]).toContain(((await response.json()) as { call: Call }).call.status);
    await expect.poll(() => runs("writer")).toBe(before + 1);
  });

  it("refuses a confirmation from a token (403) or a viewer (403), and for an unknown call (404)", async () => {
    const { call } = await requestWaitingCall("writer", "confirmer", operator.headers);
    const token = await createToken("confirmer", operator.headers);
    const byToken = await confirm(call.id, token);
    expect(byToken.status).toBe(403);
    expect(await errorOf(byToken)).toEqual({ code: "forbidden", message: "a person must confirm calls; API tokens cannot" });
    const byViewer = await confirm(call.id, viewer.headers);
    expect(byViewer.status).toBe(403);
    expect((await confirm("missing", operator.headers)).status).toBe(404);
    expect((await db().call.findUniqueOrThrow({ where: { id: call.id } })).status).toBe("awaiting_confirmation");
  });

  it("lets an agent's call wait under its token's persona until its owner confirms it", async () => {
    const token = await createToken("confirmer", operator.headers, "deploy-bot");
    const other = await requestCall("writer", { args: {}, persona: "dual" }, token);
    expect(other.status).toBe(403);
    expect(await errorOf(other)).toEqual({ code: "forbidden", message: "token deploy-bot acts as persona confirmer; it cannot call under persona dual" });
    const response = await requestCall("writer", { args: {} }, token);
    expect(response.status).toBe(202);
    const { call } = (await response.json()) as { call: Call };
    expect(call).toMatchObject({ status: "awaiting_confirmation", persona: "confirmer", requestedBy: operator.email, tokenName: "deploy-bot" });
    const row = await db().call.findUniqueOrThrow({ where: { id: call.id } });
    expect(row.requesterId).not.toBeNull();
    expect(row.tokenId).not.toBeNull();
    const actor = await db().auditEvent.findFirstOrThrow({ where: { callId: call.id, action: "call.requested" } });
    expect(actor.actor).toBe(`token:deploy-bot (${operator.email})`);
    const confirmed = await confirm(call.id, operator.headers);
    expect(((await confirmed.json()) as { call: Call }).call).toMatchObject({ status: "succeeded", confirmedBy: operator.email });
  });

  it("lets the requester cancel a call awaiting confirmation; a viewer who did not request it may not", async () => {
    const { call } = await requestWaitingCall("writer", "confirmer", operator.headers);
    const byViewer = await invoke(cancelRoute.POST, `/api/v1/calls/${call.id}/cancel`, { method: "POST", params: { id: call.id }, as: viewer.headers });
    expect(byViewer.status).toBe(403);
    expect(await errorOf(byViewer)).toEqual({ code: "forbidden", message: "only the requester or an operator may cancel this call" });
    const response = await invoke(cancelRoute.POST, `/api/v1/calls/${call.id}/cancel`, { method: "POST", params: { id: call.id }, as: operator.headers });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { call: Call }).call).toMatchObject({ status: "cancelled", error: `cancelled by ${operator.email}` });
    const late = await confirm(call.id, operator.headers);
    expect(late.status).toBe(409);
    expect(await errorOf(late)).toEqual({ code: "conflict", message: `call ${call.id} is cancelled, not awaiting confirmation (cancelled by ${operator.email})` });
    // The viewer's refused attempt is on the record too (issue 10 point 4).
    expect(await auditActions(call.id)).toEqual(["call.requested", "access.refused", "call.cancelled"]);
  });

  it("expires a call that waited past APPROVAL_TTL_SECONDS instead of running it", async () => {
    const { call } = await requestWaitingCall("writer", "confirmer", operator.headers);
    await db().call.update({ where: { id: call.id }, data: { createdAt: new Date(Date.now() - 3601_000) } });
    const before = runs("writer");
    const response = await confirm(call.id, operator.headers);
    expect(response.status).toBe(409);
    expect(await errorOf(response)).toEqual({
      code: "conflict",
      message: `call ${call.id} is expired, not awaiting confirmation (not confirmed within 3600 s (APPROVAL_TTL_SECONDS))`,
    });
    expect(runs("writer")).toBe(before);
    expect(await auditActions(call.id)).toEqual(["call.requested", "call.expired"]);
  });

  it("refuses to confirm a call whose entry file changed since it was requested, and ends it expired", async () => {
    const { call } = await requestWaitingCall("writer", "confirmer", operator.headers);
    const entry = path.join(testConsole.root, "writer", "run.sh");
    const original = fs.readFileSync(entry, "utf8");
    fs.writeFileSync(entry, `${original}\n# changed\n`);
    try {
      const before = runs("writer");
      const response = await confirm(call.id, operator.headers);
      expect(response.status).toBe(409);
      const error = await errorOf(response);
      expect(error.code).toBe("conflict");
      expect(error.message).toMatch(new RegExp(`^call ${call.id} can no longer be confirmed: what the call runs changed since the call was requested \\(digest [0-9a-f]{12}… is now [0-9a-f]{12}…\\)$`));
      expect(await db().call.findUniqueOrThrow({ where: { id: call.id } })).toMatchObject({ status: "expired", error: error.message.replace(`call ${call.id} can no longer be confirmed: `, "") });
      expect(runs("writer")).toBe(before);
    } finally {
      fs.writeFileSync(entry, original);
    }
  });
});

/**
 * Every refused attempt is on the audit trail with who, what and why (issue 10 point 4): a requester
 * signing their own call, a role refusal, a bad origin (with a session, and at sign-in), alongside the
 * policy's own `call.refused` and the workers' `worker.refused` — recorded once each, not twice.
 * (Route handlers are invoked in-process here, without the server that stamps the client address, so
 * the address reads "unknown"; tests/attack/forwarded-headers.test.ts covers addresses over HTTP.)
 */
import { beforeAll, describe, expect, it } from "vitest";
import * as loginRoute from "@/app/api/v1/auth/login/route";
import * as usersRoute from "@/app/api/v1/users/route";
import { db } from "@/lib/server/db";
import { invoke } from "../helpers/route-client";
import { setUpTestConsole, writeSkill } from "../helpers/test-console";
import { createPerson, TEST_ADMIN, type TestPerson } from "../helpers/test-people";
import { createPersonaRow, requestCall, requestWaitingCall, sign } from "../api/approvals-fixtures";

let requester: TestPerson;
let operator: TestPerson;

/** The newest audit entries with `action`, oldest first. */
async function newest(action: string, count = 1) {
  const rows = await db().auditEvent.findMany({ where: { action }, orderBy: { id: "desc" }, take: count });
  return rows.reverse().map((row) => ({ actor: row.actor, approvalId: row.approvalId, callId: row.callId, details: JSON.parse(row.details) as Record<string, unknown> }));
}

beforeAll(async () => {
  const testConsole = await setUpTestConsole();
  writeSkill(testConsole.root, "wiper", { name: "wiper", class: "dangerous" }, 'echo "{}"');
  writeSkill(testConsole.root, "reader", { name: "reader" }, 'echo "{}"');
  await createPersonaRow("dual", "dual-sign-required");
  await createPersonaRow("no-reader", "dual-sign-required", ["*"], ["reader"]);
  requester = await createPerson("approver");
  operator = await createPerson("operator");
});

describe("refused attempts", () => {
  it("records a requester signing their own call", async () => {
    const { approvalId } = await requestWaitingCall("wiper", "dual", requester.headers);
    expect((await sign(approvalId!, requester.headers)).status).toBe(403);
    expect(await newest("access.refused")).toEqual([
      {
        actor: requester.email,
        approvalId,
        callId: null,
        details: { method: "POST", path: `/api/v1/approvals/${approvalId}/sign`, code: "forbidden", reason: "the requester cannot sign their own call", address: "unknown" },
      },
    ]);
  });

  it("records a role refusal", async () => {
    const response = await invoke(usersRoute.POST, "/api/v1/users", { as: operator.headers, body: { email: "x@console.local", password: "x".repeat(16), role: "admin" } });
    expect(response.status).toBe(403);
    expect((await newest("access.refused"))[0]).toMatchObject({ actor: operator.email, details: { method: "POST", path: "/api/v1/users", code: "forbidden", reason: `this needs the admin role; ${operator.email} is an operator` } });
  });

  it("records a bad origin, with the session's person, and at sign-in as anonymous", async () => {
    const withSession = await invoke(usersRoute.POST, "/api/v1/users", { as: { ...requester.headers, origin: "http://evil.example" }, body: {} });
    expect(withSession.status).toBe(403);
    const login = await invoke(loginRoute.POST, "/api/v1/auth/login", { as: "anonymous", body: { email: TEST_ADMIN.email, password: TEST_ADMIN.password }, headers: { origin: "http://evil.example" } });
    expect(login.status).toBe(403);
    const [first, second] = await newest("access.refused", 2);
    expect(first).toMatchObject({ actor: requester.email, details: { path: "/api/v1/users", code: "bad_origin" } });
    expect(first!.details.reason).toMatch(/^cross-origin request refused: Origin http:\/\/evil\.example is not this console/);
    expect(second).toMatchObject({ actor: "anonymous", details: { path: "/api/v1/auth/login", code: "bad_origin" } });
  });

  it("records a policy refusal once, as call.refused", async () => {
    const before = await db().auditEvent.count({ where: { action: "access.refused" } });
    const response = await requestCall("reader", { args: {}, persona: "no-reader" }, requester.headers);
    expect(response.status).toBe(403);
    expect((await newest("call.refused"))[0]).toMatchObject({ actor: requester.email, details: { persona: "no-reader", reason: 'reader: persona no-reader denies reader (skills.deny: "reader")' } });
    expect(await db().auditEvent.count({ where: { action: "access.refused" } })).toBe(before);
  });
});

/**
 * An API token is what an AI agent holds. If a token carried its owner's full role, an admin's token
 * would let the agent administer the console: create people (with passwords it chooses), sign in as
 * them through the public login route and sign its own dangerous call twice — "nothing dangerous runs
 * without two other people" would fall to one agent with no person involved. It could equally rewrite
 * personas (its own token's persona to dual-sign-required, `default` to anything) or revoke every
 * token. An agent acts at most as an operator: run calls under its persona, read, cancel.
 */
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import * as personaRoute from "@/app/api/v1/personas/[name]/route";
import * as personasRoute from "@/app/api/v1/personas/route";
import * as importRoute from "@/app/api/v1/personas/import/route";
import * as tokenRoute from "@/app/api/v1/tokens/[id]/route";
import * as tokensRoute from "@/app/api/v1/tokens/route";
import * as userRoute from "@/app/api/v1/users/[id]/route";
import * as usersRoute from "@/app/api/v1/users/route";
import * as sessionRoute from "@/app/api/v1/auth/session/route";
import { db } from "@/lib/server/db";
import { invoke } from "../helpers/route-client";
import { setUpTestConsole, writeSkill, type TestConsole } from "../helpers/test-console";
import { createPerson, signIn, type TestPerson } from "../helpers/test-people";
import { createPersonaRow, createToken, requestWaitingCall, sign } from "../api/approvals-fixtures";

let testConsole: TestConsole;
let markerDir: string;
let agent: Record<string, string>;
let operator: TestPerson;

beforeAll(async () => {
  testConsole = await setUpTestConsole({ MARKER_DIR: "" });
  markerDir = path.join(testConsole.dir, "markers");
  fs.mkdirSync(markerDir);
  process.env.MARKER_DIR = markerDir;
  writeSkill(testConsole.root, "wiper", { name: "wiper", class: "dangerous", env_allow: ["MARKER_DIR"] }, 'echo run >> "$MARKER_DIR/wiper.runs"; echo "{}"');
  await createPersonaRow("dual", "dual-sign-required");
  operator = await createPerson("operator");
  // The admin hands an agent a token for the dual-sign persona (the agent may *request* dangerous calls).
  agent = await createToken("dual", "admin");
});

describe("an agent holding an admin's API token", () => {
  it("cannot mint two approvers and get its own dangerous call signed by them", async () => {
    const { call, approvalId } = await requestWaitingCall("wiper", "dual", agent);
    const minted: Array<Record<string, string>> = [];
    for (const name of ["sock-a", "sock-b"]) {
      const email = `${name}@console.local`;
      const password = `password-of-${name}`;
      const created = await invoke(usersRoute.POST, "/api/v1/users", { body: { email, password, role: "approver" }, as: agent });
      expect.soft(created.status, await created.clone().text()).toBe(403);
      if (created.status === 201) minted.push(await signIn(email, password));
    }
    for (const headers of minted) await sign(approvalId!, headers);
    // No approver was minted and nobody signed: the call still waits, so the skill cannot have run.
    expect(await db().user.findMany({ where: { email: { in: ["sock-a@console.local", "sock-b@console.local"] } } })).toEqual([]);
    expect(await db().approvalSignature.count({ where: { approvalId: approvalId! } })).toBe(0);
    expect(await db().approval.findUniqueOrThrow({ where: { id: approvalId! } })).toMatchObject({ status: "pending", decidedBy: null });
    expect((await db().call.findUniqueOrThrow({ where: { id: call.id } })).status).toBe("awaiting_approval");
  });

  it("is refused on every admin-only route and sees only its owner's tokens", async () => {
    const target = await db().user.findUniqueOrThrow({ where: { email: operator.email } });
    const attempts: Array<[string, Response]> = [
      ["GET /users", await invoke(usersRoute.GET, "/api/v1/users", { as: agent })],
      ["PATCH /users/{id}", await invoke(userRoute.PATCH, `/api/v1/users/${target.id}`, { method: "PATCH", body: { role: "admin" }, params: { id: target.id }, as: agent })],
      ["POST /personas", await invoke(personasRoute.POST, "/api/v1/personas", { body: { name: "mine", permission_mode: "dual-sign-required", skills: { allow: ["*"] } }, as: agent })],
      ["PUT /personas/default", await invoke(personaRoute.PUT, "/api/v1/personas/default", { method: "PUT", body: { permission_mode: "dual-sign-required", skills: { allow: ["*"] } }, params: { name: "default" }, as: agent })],
      ["DELETE /personas/dual", await invoke(personaRoute.DELETE, "/api/v1/personas/dual", { method: "DELETE", params: { name: "dual" }, as: agent })],
      ["POST /personas/import", await invoke(importRoute.POST, "/api/v1/personas/import", { body: "- name: x\n  permission_mode: dual-sign-required\n", headers: { "content-type": "application/yaml" }, as: agent })],
    ];
    for (const [what, response] of attempts) expect(response.status, `${what}: ${await response.text()}`).toBe(403);
    expect((await db().persona.findUniqueOrThrow({ where: { name: "default" } })).permissionMode).toBe("read-only");
    expect((await db().user.findUniqueOrThrow({ where: { id: target.id } })).role).toBe("operator");

    // Another person's token: an agent may neither list nor revoke it.
    const othersToken = await createToken("default", operator.headers, "operator-agent");
    const tokenRow = await db().apiToken.findFirstOrThrow({ where: { name: "operator-agent" } });
    const listed = (await (await invoke(tokensRoute.GET, "/api/v1/tokens", { as: agent })).json()) as { tokens: Array<{ name: string }> };
    expect(listed.tokens.map((token) => token.name)).not.toContain("operator-agent");
    const revoke = await invoke(tokenRoute.DELETE, `/api/v1/tokens/${tokenRow.id}`, { method: "DELETE", params: { id: tokenRow.id }, as: agent });
    expect(revoke.status).toBe(404);
    expect((await invoke(sessionRoute.GET, "/api/v1/auth/session", { as: othersToken })).status).toBe(200);
  });
});

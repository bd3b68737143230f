/**
 * Identity over the API (issue 4 point 1; DESIGN.md "HTTP interface"): every /api/v1 route answers 401
 * without a session or token, sign-in sets an HttpOnly session cookie, sign-out and revocation take
 * effect at once, roles are enforced, and POST /api/v1/users validates what it is given.
 */
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import * as loginRoute from "@/app/api/v1/auth/login/route";
import * as logoutRoute from "@/app/api/v1/auth/logout/route";
import * as sessionRoute from "@/app/api/v1/auth/session/route";
import * as skillCallsRoute from "@/app/api/v1/skills/[name]/calls/route";
import * as tokenRoute from "@/app/api/v1/tokens/[id]/route";
import * as tokensRoute from "@/app/api/v1/tokens/route";
import * as userRoute from "@/app/api/v1/users/[id]/route";
import * as usersRoute from "@/app/api/v1/users/route";
import { db } from "@/lib/server/db";
import { invoke } from "../helpers/route-client";
import { setUpTestConsole, writeSkill, type TestConsole } from "../helpers/test-console";
import { createPerson, signIn, TEST_ADMIN } from "../helpers/test-people";

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
const API_DIR = path.resolve("app/api");

let testConsole: TestConsole;

interface ErrorAnswer {
  error: { code: string; message: string };
}

/** Every route module under app/api (relative folder, e.g. `v1/skills/[name]/calls`). */
function routeFolders(dir = API_DIR): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...routeFolders(full));
    else if (entry.name === "route.ts") found.push(path.relative(API_DIR, dir));
  }
  return found.sort();
}

/** The URL path of a route folder with every dynamic segment filled in with `x`. */
function pathOf(folder: string): string {
  return `/api/${folder.replace(/\[\.\.\.[^\]]+\]/g, "x/y").replace(/\[[^\]]+\]/g, "x")}`;
}

function paramsOf(folder: string): Record<string, string> {
  const params: Record<string, string> = {};
  for (const match of folder.matchAll(/\[(?:\.\.\.)?([^\]]+)\]/g)) params[match[1]!] = "x";
  return params;
}

beforeAll(async () => {
  testConsole = await setUpTestConsole();
  writeSkill(testConsole.root, "echo", { name: "echo" }, 'echo "{}"');
});

describe("every API route needs a session or a token", () => {
  const folders = routeFolders();

  it("finds the route modules, including the catch-all", () => {
    expect(folders).toContain("[...path]");
    expect(folders).toContain("v1/skills/[name]/calls");
    expect(folders.length).toBeGreaterThan(15);
  });

  it.each(folders.filter((folder) => folder !== "v1/auth/login"))("%s answers 401 unauthenticated to every method without credentials", async (folder) => {
    const module = (await import(/* @vite-ignore */ path.join(API_DIR, folder, "route.ts"))) as Record<string, unknown>;
    const handlers = METHODS.filter((method) => typeof module[method] === "function");
    expect(handlers.length).toBeGreaterThan(0);
    for (const method of handlers) {
      const body = method === "GET" || method === "DELETE" ? undefined : "{}";
      const response = await invoke(module[method], pathOf(folder), { method, body, params: paramsOf(folder), as: "anonymous", headers: { origin: "http://127.0.0.1" } });
      expect(response.status, `${method} ${pathOf(folder)}`).toBe(401);
      if (folder === "mcp") {
        // The MCP server answers in JSON-RPC, and asks for a bearer token.
        expect(response.headers.get("www-authenticate")).toBe('Bearer realm="skill-console"');
        expect(((await response.json()) as { jsonrpc: string }).jsonrpc).toBe("2.0");
        continue;
      }
      expect(((await response.json()) as ErrorAnswer).error.code).toBe("unauthenticated");
    }
  });

  it("answers 401 to a malformed or unknown bearer token, even alongside a valid cookie", async () => {
    const { cookie } = await signIn(TEST_ADMIN.email, TEST_ADMIN.password);
    for (const authorization of ["Bearer", "Basic abc", "Bearer skc_not-a-token", "Bearer something-else"]) {
      const response = await invoke(sessionRoute.GET, "/api/v1/auth/session", { as: { cookie: cookie!, authorization } });
      expect(response.status, authorization).toBe(401);
    }
  });
});

describe("sign-in and sign-out", () => {
  it("sets an HttpOnly SameSite session cookie, and the session names the person", async () => {
    const response = await invoke(loginRoute.POST, "/api/v1/auth/login", { body: { email: TEST_ADMIN.email, password: TEST_ADMIN.password }, as: "anonymous" });
    expect(response.status).toBe(200);
    const cookies = response.headers.getSetCookie();
    const session = cookies.find((line) => line.startsWith("skill-console.session_token="));
    expect(session).toBeDefined();
    expect(session).toMatch(/;\s*HttpOnly/i);
    expect(session).toMatch(/;\s*SameSite=Lax/i);
    expect(((await response.json()) as { user: { email: string; role: string } }).user).toMatchObject({ email: TEST_ADMIN.email, role: "admin" });

    const cookie = cookies.map((line) => line.split(";")[0]).join("; ");
    const who = await invoke(sessionRoute.GET, "/api/v1/auth/session", { as: { cookie } });
    expect(who.status).toBe(200);
    expect(((await who.json()) as { identity: unknown }).identity).toMatchObject({ email: TEST_ADMIN.email, role: "admin", via: "session", token: null });
  });

  it("accepts the email in another case and with spaces around it", async () => {
    const response = await invoke(loginRoute.POST, "/api/v1/auth/login", { body: { email: `  ${TEST_ADMIN.email.toUpperCase()} `, password: TEST_ADMIN.password }, as: "anonymous" });
    expect(response.status).toBe(200);
  });

  it("answers a wrong password and an unknown email with the same 401 and message", async () => {
    const person = await createPerson("viewer");
    const wrongPassword = await invoke(loginRoute.POST, "/api/v1/auth/login", { body: { email: person.email, password: "not-the-password" }, as: "anonymous" });
    const unknownEmail = await invoke(loginRoute.POST, "/api/v1/auth/login", { body: { email: "nobody-here@console.local", password: "not-the-password" }, as: "anonymous" });
    expect(wrongPassword.status).toBe(401);
    expect(unknownEmail.status).toBe(401);
    const [a, b] = [(await wrongPassword.json()) as ErrorAnswer, (await unknownEmail.json()) as ErrorAnswer];
    expect(a).toEqual(b);
    expect(a.error.code).toBe("unauthenticated");
    expect(wrongPassword.headers.getSetCookie()).toEqual([]);
  });

  it("refuses a malformed body and unknown fields with 400", async () => {
    for (const body of ["not json", "[]", { email: TEST_ADMIN.email }, { email: TEST_ADMIN.email, password: TEST_ADMIN.password, remember: true }]) {
      const response = await invoke(loginRoute.POST, "/api/v1/auth/login", { body, as: "anonymous" });
      expect(response.status, JSON.stringify(body)).toBe(400);
    }
  });

  it("sign-out deletes the session: the cookie no longer works", async () => {
    const person = await createPerson("operator");
    const before = await invoke(sessionRoute.GET, "/api/v1/auth/session", { as: person.headers });
    expect(before.status).toBe(200);
    const sessionsBefore = await db().session.count({ where: { user: { email: person.email } } });
    const out = await invoke(logoutRoute.POST, "/api/v1/auth/logout", { method: "POST", as: person.headers });
    expect(out.status).toBe(200);
    expect(await db().session.count({ where: { user: { email: person.email } } })).toBe(sessionsBefore - 1);
    const after = await invoke(sessionRoute.GET, "/api/v1/auth/session", { as: person.headers });
    expect(after.status).toBe(401);
  });

  it("a cookie-authenticated sign-out needs the console's Origin", async () => {
    const person = await createPerson("viewer");
    const response = await invoke(logoutRoute.POST, "/api/v1/auth/logout", { method: "POST", as: { cookie: person.headers.cookie! } });
    expect(response.status).toBe(403);
    expect((await invoke(sessionRoute.GET, "/api/v1/auth/session", { as: person.headers })).status).toBe(200);
  });
});

describe("API tokens", () => {
  it("a token identifies its owner and persona until it is revoked, then answers 401", async () => {
    const operator = await createPerson("operator");
    const created = await invoke(tokensRoute.POST, "/api/v1/tokens", { body: { persona: "default", name: "ci agent" }, as: operator.headers });
    expect(created.status).toBe(201);
    const { token, info } = (await created.json()) as { token: string; info: { id: string; persona: string } };
    expect(token).toMatch(/^skc_/);
    expect(await db().apiToken.count({ where: { tokenHash: token } })).toBe(0);

    const bearer = { authorization: `Bearer ${token}` };
    const who = await invoke(sessionRoute.GET, "/api/v1/auth/session", { as: bearer });
    expect(who.status).toBe(200);
    expect(((await who.json()) as { identity: unknown }).identity).toMatchObject({ email: operator.email, via: "token", token: { id: info.id, name: "ci agent", persona: "default" } });

    const revoked = await invoke(tokenRoute.DELETE, `/api/v1/tokens/${info.id}`, { method: "DELETE", params: { id: info.id }, as: operator.headers });
    expect(revoked.status).toBe(200);
    const after = await invoke(sessionRoute.GET, "/api/v1/auth/session", { as: bearer });
    expect(after.status).toBe(401);
    expect(((await after.json()) as ErrorAnswer).error.code).toBe("unauthenticated");
  });

  it("a token cannot create another token (a person must)", async () => {
    const operator = await createPerson("operator");
    const created = (await (await invoke(tokensRoute.POST, "/api/v1/tokens", { body: { persona: "default", name: "agent" }, as: operator.headers })).json()) as { token: string };
    const response = await invoke(tokensRoute.POST, "/api/v1/tokens", { body: { persona: "default", name: "child" }, as: { authorization: `Bearer ${created.token}` } });
    expect(response.status).toBe(403);
  });
});

describe("roles", () => {
  it("a viewer gets 403 forbidden for running a call, creating a user and creating a token", async () => {
    const viewer = await createPerson("viewer");
    const attempts = [
      invoke(skillCallsRoute.POST, "/api/v1/skills/echo/calls", { body: { args: {} }, params: { name: "echo" }, as: viewer.headers }),
      invoke(usersRoute.POST, "/api/v1/users", { body: { email: "new-one@console.local", password: "a-long-password-1", role: "viewer" }, as: viewer.headers }),
      invoke(tokensRoute.POST, "/api/v1/tokens", { body: { persona: "default", name: "mine" }, as: viewer.headers }),
    ];
    for (const response of await Promise.all(attempts)) {
      expect(response.status).toBe(403);
      expect(((await response.json()) as ErrorAnswer).error.code).toBe("forbidden");
    }
    expect(await db().user.count({ where: { email: "new-one@console.local" } })).toBe(0);
    expect(await db().call.count({ where: { skill: "echo" } })).toBe(0);
  });

  it("an operator cannot create users or list them", async () => {
    const operator = await createPerson("operator");
    const create = await invoke(usersRoute.POST, "/api/v1/users", { body: { email: "by-operator@console.local", password: "a-long-password-1", role: "admin" }, as: operator.headers });
    expect(create.status).toBe(403);
    expect((await invoke(usersRoute.GET, "/api/v1/users", { as: operator.headers })).status).toBe(403);
    expect(await db().user.count({ where: { email: "by-operator@console.local" } })).toBe(0);
  });

  it("a role change takes effect on the next request of an existing session", async () => {
    const person = await createPerson("viewer");
    const user = await db().user.findUniqueOrThrow({ where: { email: person.email } });
    const tokenAttempt = () => invoke(tokensRoute.POST, "/api/v1/tokens", { body: { persona: "default", name: "later" }, as: person.headers });
    expect((await tokenAttempt()).status).toBe(403);
    const promoted = await invoke(userRoute.PATCH, `/api/v1/users/${user.id}`, { method: "PATCH", body: { role: "operator" }, params: { id: user.id } });
    expect(promoted.status).toBe(200);
    expect((await tokenAttempt()).status).toBe(201);
    const demoted = await invoke(userRoute.PATCH, `/api/v1/users/${user.id}`, { method: "PATCH", body: { role: "viewer" }, params: { id: user.id } });
    expect(demoted.status).toBe(200);
    expect((await tokenAttempt()).status).toBe(403);
    const who = (await (await invoke(sessionRoute.GET, "/api/v1/auth/session", { as: person.headers })).json()) as { identity: { role: string } };
    expect(who.identity.role).toBe("viewer");
  });

  it("the last admin cannot be demoted (409); with a second admin, one can", async () => {
    const admin = await db().user.findUniqueOrThrow({ where: { email: TEST_ADMIN.email } });
    const admins = await db().user.count({ where: { role: "admin" } });
    expect(admins).toBe(1);
    const refused = await invoke(userRoute.PATCH, `/api/v1/users/${admin.id}`, { method: "PATCH", body: { role: "approver" }, params: { id: admin.id } });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as ErrorAnswer).error.code).toBe("conflict");
    expect((await db().user.findUniqueOrThrow({ where: { id: admin.id } })).role).toBe("admin");

    const second = await createPerson("admin");
    const secondId = (await db().user.findUniqueOrThrow({ where: { email: second.email } })).id;
    const demoted = await invoke(userRoute.PATCH, `/api/v1/users/${secondId}`, { method: "PATCH", body: { role: "viewer" }, params: { id: secondId } });
    expect(demoted.status).toBe(200);
  });
});

describe("POST /api/v1/users validation", () => {
  it.each([
    ["a short password", { email: "short-pw@console.local", password: "eleven-char", role: "viewer" }],
    ["an unknown role", { email: "bad-role@console.local", password: "a-long-password-1", role: "superuser" }],
    ["an email without a dotted domain", { email: "someone@localhost", password: "a-long-password-1", role: "viewer" }],
    ["no email", { password: "a-long-password-1", role: "viewer" }],
    ["an unknown field", { email: "extra@console.local", password: "a-long-password-1", role: "viewer", admin: true }],
  ])("answers 400 to %s and creates nobody", async (_what, body) => {
    const before = await db().user.count();
    const response = await invoke(usersRoute.POST, "/api/v1/users", { body });
    expect(response.status).toBe(400);
    expect(((await response.json()) as ErrorAnswer).error.code).toBe("bad_request");
    expect(await db().user.count()).toBe(before);
  });

  it("creates a person who can sign in (201), and answers 409 to the same email again, in any case", async () => {
    const body = { email: "Dup.Person@Console.local", password: "a-long-password-1", role: "approver" };
    const first = await invoke(usersRoute.POST, "/api/v1/users", { body });
    expect(first.status).toBe(201);
    expect(((await first.json()) as { user: { email: string; role: string } }).user).toMatchObject({ email: "dup.person@console.local", role: "approver" });
    const again = await invoke(usersRoute.POST, "/api/v1/users", { body: { ...body, email: "dup.person@console.local" } });
    expect(again.status).toBe(409);
    expect(((await again.json()) as ErrorAnswer).error.code).toBe("conflict");
    await expect(signIn("dup.person@console.local", body.password)).resolves.toHaveProperty("cookie");
  });
});

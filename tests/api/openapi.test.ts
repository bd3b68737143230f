import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import * as openApiRoute from "@/app/api/v1/openapi.json/route";
import * as denyRoute from "@/app/api/v1/approvals/[id]/deny/route";
import * as loginRoute from "@/app/api/v1/auth/login/route";
import * as confirmRoute from "@/app/api/v1/calls/[id]/confirm/route";
import * as personaRoute from "@/app/api/v1/personas/[name]/route";
import * as personasRoute from "@/app/api/v1/personas/route";
import * as secretsRoute from "@/app/api/v1/secrets/route";
import * as callsRoute from "@/app/api/v1/skills/[name]/calls/route";
import * as presetsRoute from "@/app/api/v1/skills/[name]/presets/route";
import * as tokensRoute from "@/app/api/v1/tokens/route";
import * as toolCallRoute from "@/app/api/v1/tools/call/route";
import * as userRoute from "@/app/api/v1/users/[id]/route";
import * as usersRoute from "@/app/api/v1/users/route";
import * as workerTokensRoute from "@/app/api/v1/worker-tokens/route";
import * as auditRoute from "@/app/api/v1/audit/route";
import * as packEnableRoute from "@/app/api/v1/packs/[id]/enable/route";
import * as packRoute from "@/app/api/v1/packs/[id]/route";
import * as packsRoute from "@/app/api/v1/packs/route";
import * as skillRoute from "@/app/api/v1/skills/[name]/route";
import * as skillsRoute from "@/app/api/v1/skills/route";
import * as workersRoute from "@/app/api/v1/workers/route";
import { UNDESCRIBED_ROUTES } from "@/lib/server/openapi/api-operations";
import { buildOpenApiDocument, openApiDocument, type OpenApiDocument } from "@/lib/server/openapi/openapi-document";
import { createAjv } from "@/lib/validation/ajv";
import { NEW_USER_SCHEMA, SIGN_IN_SCHEMA, NEW_API_TOKEN_SCHEMA, USER_CHANGE_SCHEMA } from "@/lib/validation/auth-requests";
import { CALL_REQUEST_SCHEMA, CONFIRM_REQUEST_SCHEMA, DENY_REQUEST_SCHEMA, NEW_PRESET_SCHEMA, TOOL_CALL_REQUEST_SCHEMA } from "@/lib/validation/call-requests";
import { NEW_PERSONA_SCHEMA, PERSONA_REPLACEMENT_SCHEMA } from "@/lib/validation/persona-requests";
import { NEW_SECRET_SCHEMA } from "@/lib/validation/secret-requests";
import { NEW_WORKER_TOKEN_SCHEMA } from "@/lib/validation/worker-requests";
import { invoke } from "../helpers/route-client";
import { writePack } from "../packs/pack-fixtures";
import { reloadTestConsole, setUpTestConsole, writeSkill, type TestConsole } from "../helpers/test-console";
import { createPerson } from "../helpers/test-people";

const APP_DIR = path.resolve(__dirname, "../../app");
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

/** Every app/api/**\/route.ts as its OpenAPI path (`[id]` → `{id}`, `[...path]` → `{path}`) and file. */
function routeFiles(dir = path.join(APP_DIR, "api"), segments: string[] = ["api"]): { path: string; file: string }[] {
  const found: { path: string; file: string }[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...routeFiles(full, [...segments, entry.name]));
    else if (entry.name === "route.ts") found.push({ path: `/${segments.map((segment) => segment.replace(/^\[(?:\.\.\.)?(.+)\]$/, "{$1}")).join("/")}`, file: full });
  }
  return found;
}

/** Every exported method of every route, as `METHOD /path`. */
async function servedOperations(): Promise<string[]> {
  const served: string[] = [];
  for (const route of routeFiles()) {
    const module = (await import(route.file)) as Record<string, unknown>;
    for (const method of METHODS) if (typeof module[method] === "function") served.push(`${method} ${route.path}`);
  }
  return served.sort();
}

function describedOperations(document: OpenApiDocument): string[] {
  return Object.entries(document.paths)
    .flatMap(([where, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${where}`))
    .sort();
}

let testConsole: TestConsole;

beforeAll(async () => {
  testConsole = await setUpTestConsole();
});

describe("GET /api/v1/openapi.json", () => {
  it("describes every method of every app/api route, and nothing else", async () => {
    const served = (await servedOperations()).filter((operation) => !UNDESCRIBED_ROUTES.includes(operation.split(" ")[1]!));
    const described = describedOperations(openApiDocument());
    // A route nobody described yet: add its ApiOperation to lib/server/openapi/api-operations.ts.
    expect(served.filter((operation) => !described.includes(operation))).toEqual([]);
    expect(described.filter((operation) => !served.includes(operation))).toEqual([]);
    expect(served).toContain("POST /api/v1/workers/{id}/calls/{callId}/finish");
    expect(served).toContain("GET /api/v1/skills/{name}/resources/{path}");
  });

  it("fails the coverage check for a route the table lacks", async () => {
    const withoutCalls = buildOpenApiDocument("test").paths;
    delete withoutCalls["/api/v1/skills/{name}/calls"];
    const served = (await servedOperations()).filter((operation) => !UNDESCRIBED_ROUTES.includes(operation.split(" ")[1]!));
    const described = describedOperations({ openapi: "3.1.0", paths: withoutCalls });
    expect(served.filter((operation) => !described.includes(operation))).toEqual(["POST /api/v1/skills/{name}/calls"]);
  });

  it("is a valid OpenAPI 3.1 document (the official schema, tests/fixtures/openapi-3.1-schema.json)", () => {
    // src/schemas/validation/schema.yaml of OAI/OpenAPI-Specification, branch v3.1-dev at 76fa096c, as JSON.
    // Ajv 8 resolves its `$dynamicRef: "#meta"` to the schema's root instead of `$defs/schema` (the one
    // `$dynamicAnchor: meta`), so it is read as the `$ref` it means in this self-contained schema.
    const text = fs.readFileSync(path.resolve(__dirname, "../fixtures/openapi-3.1-schema.json"), "utf8");
    const metaSchema = JSON.parse(text.replaceAll('"$dynamicRef": "#meta"', '"$ref": "#/$defs/schema"')) as object;
    const ajv = createAjv("2020-12");
    const validate = ajv.compile(metaSchema);
    const document = openApiDocument();
    expect(validate(document), JSON.stringify(validate.errors?.slice(0, 5), null, 1)).toBe(true);
    expect(validate({ ...document, openapi: "3.0.3" })).toBe(false);
    // The meta-schema does not check Schema Objects: each request body schema must compile as JSON Schema 2020-12.
    for (const [where, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const content = (operation.requestBody as { content?: Record<string, { schema: object }> } | undefined)?.content ?? {};
        for (const media of Object.values(content)) expect(() => createAjv("2020-12").compile(media.schema), `${method} ${where}`).not.toThrow();
      }
    }
  });

  it("answers 401 unauthenticated without a session or token, and the document to any signed-in person", async () => {
    const anonymous = await invoke(openApiRoute.GET, "/api/v1/openapi.json", { as: "anonymous" });
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { error: { code: string } }).error.code).toBe("unauthenticated");
    const viewer = await createPerson("viewer");
    const answer = await invoke(openApiRoute.GET, "/api/v1/openapi.json", { as: viewer.headers });
    expect(answer.status).toBe(200);
    const document = (await answer.json()) as OpenApiDocument;
    expect(document).toEqual(JSON.parse(JSON.stringify(openApiDocument())));
    expect(document.openapi).toBe("3.1.0");
    const run = document.paths["/api/v1/skills/{name}/calls"]!.post!;
    expect(run.security).toEqual([{ sessionCookie: [] }, { apiToken: [] }]);
    expect(Object.keys(run.responses as object)).toEqual(["200", "202", "400", "401", "403", "404", "413"]);
    expect((run.responses as Record<string, unknown>)["404"]).toEqual({ description: "unknown skill", content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } });
    expect(document.paths["/api/v1/workers/register"]!.post!.security).toEqual([{ workerToken: [] }]);
    expect(document.paths["/api/mcp"]!.post!.security).toEqual([{ apiToken: [] }]);
    expect(document.paths["/api/v1/auth/login"]!.post!.security).toEqual([]);
    expect(document.paths["/api/v1/secrets"]!.post!.security).toEqual([{ sessionCookie: [] }]);
  });
});

/** A body a route refuses, the route and the schema it validates with. */
const REFUSED: { name: string; handler: unknown; path: string; method: string; where: string; params?: Record<string, string>; body: unknown; schema: object; as?: "anonymous" }[] = [
  { name: "a call with a typo", handler: callsRoute.POST, method: "post", where: "/api/v1/skills/{name}/calls", path: "/api/v1/skills/any/calls", params: { name: "any" }, body: { argz: {} }, schema: CALL_REQUEST_SCHEMA },
  { name: "a call with a bad target", handler: callsRoute.POST, method: "post", where: "/api/v1/skills/{name}/calls", path: "/api/v1/skills/any/calls", params: { name: "any" }, body: { args: {}, target: "no spaces" }, schema: CALL_REQUEST_SCHEMA },
  { name: "a confirmation with wait as text", handler: confirmRoute.POST, method: "post", where: "/api/v1/calls/{id}/confirm", path: "/api/v1/calls/x/confirm", params: { id: "x" }, body: { wait: "no" }, schema: CONFIRM_REQUEST_SCHEMA },
  { name: "a denial without a reason", handler: denyRoute.POST, method: "post", where: "/api/v1/approvals/{id}/deny", path: "/api/v1/approvals/x/deny", params: { id: "x" }, body: { reason: "   " }, schema: DENY_REQUEST_SCHEMA },
  { name: "a preset without a name", handler: presetsRoute.POST, method: "post", where: "/api/v1/skills/{name}/presets", path: "/api/v1/skills/any/presets", params: { name: "any" }, body: { args: {} }, schema: NEW_PRESET_SCHEMA },
  { name: "a tool call without a name", handler: toolCallRoute.POST, method: "post", where: "/api/v1/tools/call", path: "/api/v1/tools/call", body: { arguments: {} }, schema: TOOL_CALL_REQUEST_SCHEMA },
  { name: "a sign-in without a password", handler: loginRoute.POST, method: "post", where: "/api/v1/auth/login", path: "/api/v1/auth/login", body: { email: "a@console.local" }, schema: SIGN_IN_SCHEMA, as: "anonymous" },
  { name: "a token without a name", handler: tokensRoute.POST, method: "post", where: "/api/v1/tokens", path: "/api/v1/tokens", body: { persona: "default" }, schema: NEW_API_TOKEN_SCHEMA },
  { name: "a user with an unknown role", handler: usersRoute.POST, method: "post", where: "/api/v1/users", path: "/api/v1/users", body: { email: "r@console.local", password: "a-long-password-1", role: "superuser" }, schema: NEW_USER_SCHEMA },
  { name: "a user change to an unknown role", handler: userRoute.PATCH, method: "patch", where: "/api/v1/users/{id}", path: "/api/v1/users/x", params: { id: "x" }, body: { role: "boss" }, schema: USER_CHANGE_SCHEMA },
  { name: "a persona with a bad name", handler: personasRoute.POST, method: "post", where: "/api/v1/personas", path: "/api/v1/personas", body: { name: "Bad Name", permission_mode: "read-only" }, schema: NEW_PERSONA_SCHEMA },
  { name: "a persona replacement with a bad mode", handler: personaRoute.PUT, method: "put", where: "/api/v1/personas/{name}", path: "/api/v1/personas/default", params: { name: "default" }, body: { permission_mode: "god-mode" }, schema: PERSONA_REPLACEMENT_SCHEMA },
  { name: "a secret without skills", handler: secretsRoute.POST, method: "post", where: "/api/v1/secrets", path: "/api/v1/secrets", body: { name: "API_KEY", value: "long-enough-value" }, schema: NEW_SECRET_SCHEMA },
  { name: "a worker token with an empty name", handler: workerTokensRoute.POST, method: "post", where: "/api/v1/worker-tokens", path: "/api/v1/worker-tokens", body: { name: "" }, schema: NEW_WORKER_TOKEN_SCHEMA },
];

describe("the document's request bodies are the schemas the routes validate with", () => {
  it.each(REFUSED)("$name: the route answers 400 and the document's schema refuses it too", async ({ handler, path: url, params, body, where, method, schema, as }) => {
    const answer = await invoke(handler, url, { method: method.toUpperCase(), body, params, ...(as ? { as } : {}) });
    expect(answer.status).toBe(400);
    expect(((await answer.json()) as { error: { code: string } }).error.code).toBe("bad_request");
    const published = (openApiDocument().paths[where]![method]!.requestBody as { content: Record<string, { schema: object }> }).content["application/json"]!.schema;
    expect(published).toBe(schema);
    const validate = createAjv("2020-12").compile(published);
    expect(validate(body)).toBe(false);
  });

  it("the document's schema accepts what a route accepts", async () => {
    const answer = await invoke(personasRoute.POST, "/api/v1/personas", { body: { name: "reader", permission_mode: "read-only", skills: { allow: ["*"] } } });
    expect(answer.status).toBe(201);
    const validate = createAjv("2020-12").compile(NEW_PERSONA_SCHEMA);
    expect(validate({ name: "reader", permission_mode: "read-only", skills: { allow: ["*"] } })).toBe(true);
    expect(createAjv("2020-12").compile(CALL_REQUEST_SCHEMA)({ args: { path: "/" }, persona: "reader", wait: false, target: "gpu" })).toBe(true);
  });
});

/**
 * Checks `answer` (its status and JSON body) against what the document says `method where` answers
 * with that status: the schema under its content, its `#/components/schemas/…` refs resolved from the
 * document's own components. Returns the body. Fails naming the schema's complaints.
 */
async function expectDocumentedAnswer(answer: Response, method: string, where: string, status: number): Promise<unknown> {
  const text = await answer.text();
  expect(answer.status, text).toBe(status);
  const document = openApiDocument();
  const responses = document.paths[where]![method]!.responses as Record<string, { content?: Record<string, { schema: object }> }>;
  const schema = responses[String(status)]!.content!["application/json"]!.schema;
  // The refs point into the document; as $defs of one schema they resolve without the rest of it.
  const standalone = JSON.parse(JSON.stringify({ ...schema, $defs: (document.components as { schemas: object }).schemas }).replaceAll("#/components/schemas/", "#/$defs/")) as object;
  const ajv = createAjv("2020-12");
  const validate = ajv.compile(standalone);
  const body = JSON.parse(text) as unknown;
  if (!validate(body)) throw new Error(`${method.toUpperCase()} ${where} answered ${status} with a body its documented schema refuses: ${ajv.errorsText(validate.errors, { separator: "; " })}`);
  return body;
}

describe("the document's answer schemas describe what the routes answer", () => {
  it("skills, calls, workers, packs and the audit trail, each checked against its documented schema", async () => {
    writeSkill(testConsole.root, "documented", { name: "documented", class: "safe", schema: { type: "object", properties: { n: { type: "integer" } } } }, 'cat > /dev/null; echo \'{"ok": true}\'');
    await reloadTestConsole();
    await expectDocumentedAnswer(await invoke(skillsRoute.GET, "/api/v1/skills"), "get", "/api/v1/skills", 200);
    await expectDocumentedAnswer(await invoke(skillRoute.GET, "/api/v1/skills/documented", { params: { name: "documented" } }), "get", "/api/v1/skills/{name}", 200);
    const ran = (await expectDocumentedAnswer(await invoke(callsRoute.POST, "/api/v1/skills/documented/calls", { method: "POST", params: { name: "documented" }, body: { args: { n: 1 }, wait: true } }), "post", "/api/v1/skills/{name}/calls", 200)) as { call: { status: string; worker: string | null } };
    expect(ran.call.status).toBe("succeeded");
    const workers = (await expectDocumentedAnswer(await invoke(workersRoute.GET, "/api/v1/workers"), "get", "/api/v1/workers", 200)) as { workers: Array<{ name: string }> };
    expect(workers.workers.map((worker) => worker.name)).toContain(ran.call.worker);

    const folder = writePack(path.join(testConsole.dir, "documented-pack"), "documented-pack", "1.0.0", { reporter: { manifest: { name: "documented_reporter", class: "safe" } } });
    const staged = (await expectDocumentedAnswer(await invoke(packsRoute.POST, "/api/v1/packs", { method: "POST", body: { source: { type: "folder", path: folder } } }), "post", "/api/v1/packs", 201)) as { pack: { id: string; status: string } };
    expect(staged.pack.status).toBe("staged");
    await expectDocumentedAnswer(await invoke(packsRoute.GET, "/api/v1/packs"), "get", "/api/v1/packs", 200);
    await expectDocumentedAnswer(await invoke(packRoute.GET, `/api/v1/packs/${staged.pack.id}`, { params: { id: staged.pack.id } }), "get", "/api/v1/packs/{id}", 200);
    const enabled = (await expectDocumentedAnswer(await invoke(packEnableRoute.POST, `/api/v1/packs/${staged.pack.id}/enable`, { method: "POST", params: { id: staged.pack.id } }), "post", "/api/v1/packs/{id}/enable", 200)) as { pack: { status: string } };
    expect(enabled.pack.status).toBe("enabled");

    const audit = (await expectDocumentedAnswer(await invoke(auditRoute.GET, "/api/v1/audit"), "get", "/api/v1/audit", 200)) as { entries: Array<{ action: string }> };
    expect(audit.entries.map((entry) => entry.action)).toEqual(expect.arrayContaining(["call.requested", "call.finished", "pack.staged", "pack.enabled"]));
  });

  it("fails an answer that lacks a documented field", async () => {
    const answer = Response.json({ workers: [{ id: "w1", name: "lonely" }] });
    await expect(expectDocumentedAnswer(answer, "get", "/api/v1/workers", 200)).rejects.toThrow("GET /api/v1/workers answered 200 with a body its documented schema refuses: data/workers/0 must have required property 'labels'");
  });
});

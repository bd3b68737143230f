/**
 * The ongrid drop-in (DESIGN.md "Integrations", issue 14 point 2) through the HTTP routes, a real
 * worker and a real database: `GET /api/v1/skills` carries ongrid's `{items, total}`, and `POST
 * /api/v1/skills/{key}/execute` runs calls through the same policy and answers ongrid's shapes, each
 * checked field by field against tests/fixtures/ongrid/shapes.ts (copied from ongrid's Go structs).
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as executeRoute from "@/app/api/v1/skills/[name]/execute/route";
import * as skillsRoute from "@/app/api/v1/skills/route";
import * as secretsRoute from "@/app/api/v1/secrets/route";
import { db } from "@/lib/server/db";
import { SECRET_MASK } from "@/lib/server/secrets/secret-masking";
import type { Call } from "@/lib/types/call";
import type { OngridSkillSummary } from "@/lib/types/ongrid";
import { invoke } from "../helpers/route-client";
import { setUpTestConsole, writeSkill, type TestConsole } from "../helpers/test-console";
import { createPerson, type TestPerson } from "../helpers/test-people";
import { startTestWorker, stopTestWorkers } from "../helpers/test-worker";
import { confirm, createPersonaRow, createToken, type Sender } from "./approvals-fixtures";
import { CLASSES, ERR_CODES, ERROR_BODY, EXECUTE_OUTPUT, LIST_RESP, PARAM_TYPES, SCOPES, SKILL_PARAM_DEF, SKILL_SUMMARY, shapeProblems } from "../fixtures/ongrid/shapes";

let testConsole: TestConsole;
let markerDir: string;
let viewer: TestPerson;
let readOnlyAgent: Record<string, string>;
let confirmingAgent: Record<string, string>;
let dualSignAgent: Record<string, string>;

const SECRET_VALUE = "ongrid-secret-value-0042";

/** What the console adds to ongrid's error body (unknown to ongrid's clients). */
const ERROR_EXTRAS = ["details", "call_id", "status"];

function execute(key: string, body: unknown, as: Sender | "anonymous" = "admin"): Promise<Response> {
  return invoke(executeRoute.POST, `/api/v1/skills/${key}/execute`, { body, params: { name: key }, as });
}

function runs(skill: string): number {
  const file = path.join(markerDir, `${skill}.runs`);
  return fs.existsSync(file) ? fs.readFileSync(file, "utf8").split("\n").filter(Boolean).length : 0;
}

async function latestCall(skill: string): Promise<{ id: string; status: string; target: string | null; workerName: string | null; persona: string | null }> {
  return db().call.findFirstOrThrow({ where: { skill }, orderBy: { createdAt: "desc" }, select: { id: true, status: true, target: true, workerName: true, persona: true } });
}

/** Asserts an answer is ongrid's error body with `status`, `code` and `message`, and returns it. */
async function expectOngridError(response: Response, status: number, code: string, message: string): Promise<Record<string, unknown>> {
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  const body = (await response.json()) as Record<string, unknown>;
  expect(shapeProblems(body, ERROR_BODY, ERROR_EXTRAS)).toEqual([]);
  expect(ERR_CODES).toContain(body.code);
  expect(body.code).toBe(code);
  expect(body.error).toBe(message);
  return body;
}

beforeAll(async () => {
  testConsole = await setUpTestConsole({ MARKER_DIR: "" });
  markerDir = path.join(testConsole.dir, "markers");
  fs.mkdirSync(markerDir);
  process.env.MARKER_DIR = markerDir;
  const marker = (name: string) => `echo run >> "$MARKER_DIR/${name}.runs"`;
  writeSkill(
    testConsole.root,
    "probe",
    {
      name: "probe",
      category: "network",
      description: "Probes a host",
      env_allow: ["MARKER_DIR"],
      schema: {
        type: "object",
        required: ["host"],
        additionalProperties: false,
        properties: {
          host: { type: "string", description: "Host to probe" },
          port: { type: "integer", default: 22 },
          timeout: { type: "number" },
          verbose: { type: "boolean", default: false },
          mode: { enum: ["tcp", "udp"] },
          paths: { type: "array", items: { type: "string" } },
        },
      },
    },
    `${marker("probe")}; read -r args; printf '{"probed": %s}' "$args"`,
  );
  writeSkill(testConsole.root, "shaped", { name: "shaped", category: "ops", schema: { type: "object", properties: { filter: { type: "object" }, name: { type: "string" } } } }, 'echo "{}"');
  writeSkill(testConsole.root, "broken", { name: "broken", category: "ops", env_allow: ["MARKER_DIR"] }, `${marker("broken")}; echo "disk on fire" >&2; exit 3`);
  writeSkill(testConsole.root, "writer", { name: "writer", class: "mutating", category: "ops", env_allow: ["MARKER_DIR"] }, `${marker("writer")}; echo '{"written": true}'`);
  writeSkill(testConsole.root, "wiper", { name: "wiper", class: "dangerous", category: "ops", env_allow: ["MARKER_DIR"] }, `${marker("wiper")}; echo '{"wiped": true}'`);
  writeSkill(testConsole.root, "leaky", { name: "leaky", category: "ops" }, `printf '{"token": "%s"}' "$LEAKY_TOKEN"`);
  await createPersonaRow("ro", "read-only");
  await createPersonaRow("confirmer", "mutating-with-confirm");
  await createPersonaRow("dual", "dual-sign-required");
  viewer = await createPerson("viewer");
  readOnlyAgent = await createToken("ro", "admin");
  confirmingAgent = await createToken("confirmer", "admin");
  dualSignAgent = await createToken("dual", "admin");
});

afterAll(async () => {
  await stopTestWorkers(testConsole.dir);
});

describe("GET /api/v1/skills carries ongrid's list", () => {
  it("answers {skills, items, total}: items are ongrid's SkillSummary of the same skills, total their count", async () => {
    const response = await invoke(skillsRoute.GET, "/api/v1/skills");
    expect(response.status).toBe(200);
    const body = (await response.json()) as { skills: Array<{ name: string }>; items: OngridSkillSummary[]; total: number };
    expect(Object.keys(body).sort()).toEqual(["items", "skills", "total"]);
    expect(shapeProblems({ items: body.items, total: body.total }, LIST_RESP)).toEqual([]);
    expect(body.total).toBe(6);
    expect(body.items.map((item) => item.key)).toEqual(body.skills.map((skill) => skill.name));
    for (const item of body.items) {
      expect(shapeProblems(item, SKILL_SUMMARY), item.key).toEqual([]);
      expect(CLASSES).toContain(item.class);
      expect(SCOPES).toContain(item.scope);
      for (const param of item.params) {
        expect(shapeProblems(param, SKILL_PARAM_DEF), `${item.key}.${param.name}`).toEqual([]);
        expect(PARAM_TYPES).toContain(param.type);
      }
    }
  });

  it("turns the args schema's properties into params, in order, with required, default, desc and enum as ongrid spells them", async () => {
    const body = (await (await invoke(skillsRoute.GET, "/api/v1/skills?category=network")).json()) as { items: OngridSkillSummary[]; total: number };
    expect(body.total).toBe(1);
    expect(body.items).toEqual([
      {
        key: "probe",
        name: "probe",
        description: "Probes a host",
        class: "safe",
        scope: "manager",
        category: "network",
        params: [
          { name: "host", type: "string", required: true, desc: "Host to probe" },
          { name: "port", type: "int", default: 22 },
          { name: "timeout", type: "float" },
          { name: "verbose", type: "bool", default: false },
          { name: "mode", type: "enum", enum: ["tcp", "udp"] },
          { name: "paths", type: "array" },
        ],
      },
    ]);
  });

  it("marks a skill whose schema params cannot express as inventory_only, listing the params it can", async () => {
    const body = (await (await invoke(skillsRoute.GET, "/api/v1/skills?q=shaped")).json()) as { items: OngridSkillSummary[] };
    expect(body.items.find((item) => item.key === "shaped")).toEqual({
      key: "shaped",
      name: "shaped",
      description: "test skill shaped",
      class: "safe",
      scope: "manager",
      category: "ops",
      params: [{ name: "name", type: "string" }],
      inventory_only: true,
    });
  });
});

describe("POST /api/v1/skills/{key}/execute answers ongrid's shapes", () => {
  it("runs the call and answers 200 {result} with the skill's result", async () => {
    const response = await execute("probe", { params: { host: "db1", port: 5432 } });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(shapeProblems(body, EXECUTE_OUTPUT)).toEqual([]);
    expect(body).toEqual({ result: { probed: { host: "db1", port: 5432 } } });
    expect(await latestCall("probe")).toMatchObject({ status: "succeeded", persona: "default", target: null });
  });

  it("treats absent and null params as {} (and the schema still checks them)", async () => {
    const absent = await execute("writer", {});
    // The admin's session runs under the default persona (read-only): the same refusal as POST …/calls.
    await expectOngridError(absent, 403, "forbidden", "writer: persona default (read-only): a read-only persona may not run mutating skills");
    const nullParams = await execute("probe", { params: null });
    const body = await expectOngridError(nullParams, 400, "invalid", "args do not match the schema of probe");
    expect(body.details).toEqual([{ instancePath: "", schemaPath: "#/required", keyword: "required", params: { missingProperty: "host" }, message: "must have required property 'host'" }]);
  });

  it("answers a skill's failure as 200 {error} with the call's error", async () => {
    const response = await execute("broken", { params: {} });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { error: string };
    expect(shapeProblems(body, EXECUTE_OUTPUT)).toEqual([]);
    expect(Object.keys(body)).toEqual(["error"]);
    const stored = await db().call.findFirstOrThrow({ where: { skill: "broken" }, select: { status: true, error: true } });
    expect(stored.status).toBe("failed");
    expect(body.error).toBe(stored.error);
    expect(body.error).toBe("exited with code 3");
    expect(runs("broken")).toBe(1);
  });

  it("refuses invalid params with 400 invalid and the ajv errors, starting nothing", async () => {
    const before = await db().call.count();
    const body = await expectOngridError(await execute("probe", { params: { host: 7 } }), 400, "invalid", "args do not match the schema of probe");
    expect(body.details).toEqual([{ instancePath: "/host", schemaPath: "#/properties/host/type", keyword: "type", params: { type: "string" }, message: "must be string" }]);
    expect(await db().call.count()).toBe(before);
  });

  it("refuses a body that is not ongrid's executeReq with 400 invalid", async () => {
    await expectOngridError(await execute("probe", { parms: { host: "x" } }), 400, "invalid", 'unknown field "parms"; an execute request has params, edge_id');
    await expectOngridError(await execute("probe", { params: [1] }), 400, "invalid", "args must be a JSON object");
    await expectOngridError(await execute("probe", { params: {}, edge_id: -1 }), 400, "invalid", "an execute request: /edge_id must be null; /edge_id must be >= 0; /edge_id must be string");
    await expectOngridError(await execute("probe", "{not json"), 400, "invalid", "request body is not valid JSON: Expected property name or '}' in JSON at position 1");
  });

  it("answers an unknown skill with 404 not-found", async () => {
    await expectOngridError(await execute("ghost", { params: {} }), 404, "not-found", 'no skill named "ghost"');
  });

  it("refuses what the policy denies with 403 forbidden, storing and starting nothing", async () => {
    const before = await db().call.count();
    const body = await expectOngridError(await execute("writer", { params: {} }, readOnlyAgent), 403, "forbidden", "writer: persona ro (read-only): a read-only persona may not run mutating skills");
    expect(body.call_id).toBeUndefined();
    await expectOngridError(await execute("wiper", { params: {} }, confirmingAgent), 403, "forbidden", "wiper: persona confirmer (mutating-with-confirm): a mutating-with-confirm persona may not run dangerous skills");
    expect(await db().call.count()).toBe(before);
    expect(runs("writer") + runs("wiper")).toBe(0);
  });

  it("answers a call that needs a person's confirmation with 403 and the call id, and the call runs once confirmed", async () => {
    const response = await execute("writer", { params: {} }, confirmingAgent);
    const stored = await latestCall("writer");
    const body = await expectOngridError(response, 403, "forbidden", `writer needs a person's confirmation: call ${stored.id} waits (POST /api/v1/calls/${stored.id}/confirm)`);
    expect(body).toEqual({ error: body.error, code: "forbidden", call_id: stored.id, status: "awaiting_confirmation" });
    expect(stored).toMatchObject({ status: "awaiting_confirmation", persona: "confirmer" });
    expect(runs("writer")).toBe(0);
    const confirmed = await confirm(stored.id, "admin");
    expect(confirmed.status).toBe(200);
    expect(((await confirmed.json()) as { call: Call }).call).toMatchObject({ status: "succeeded", result: { written: true } });
    expect(runs("writer")).toBe(1);
  });

  it("answers a dual-sign call with 403, the call id and awaiting_approval, with a pending approval", async () => {
    const response = await execute("wiper", { params: {} }, dualSignAgent);
    const stored = await latestCall("wiper");
    const body = await expectOngridError(response, 403, "forbidden", `wiper needs two approvers' signatures: call ${stored.id} waits for approval (GET /api/v1/approvals?status=pending)`);
    expect(body).toEqual({ error: body.error, code: "forbidden", call_id: stored.id, status: "awaiting_approval" });
    expect(stored.status).toBe("awaiting_approval");
    expect(await db().approval.findUniqueOrThrow({ where: { callId: stored.id }, select: { status: true } })).toEqual({ status: "pending" });
    expect(runs("wiper")).toBe(0);
  });

  it("needs an operator: a viewer gets 403 forbidden, no credentials 401 in the console's envelope", async () => {
    await expectOngridError(await execute("probe", { params: { host: "x" } }, viewer.headers), 403, "forbidden", `this needs the operator role; ${viewer.email} is a viewer`);
    const anonymous = await execute("probe", { params: { host: "x" } }, "anonymous");
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({ error: { code: "unauthenticated", message: "sign in, or send an API token as Authorization: Bearer <token>" } });
  });

  it("gives the skill its secrets and masks them in the result", async () => {
    const secret = await invoke(secretsRoute.POST, "/api/v1/secrets", { body: { name: "LEAKY_TOKEN", value: SECRET_VALUE, skills: ["leaky"] } });
    expect(secret.status).toBe(201);
    const response = await execute("leaky", { params: {} });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).not.toContain(SECRET_VALUE);
    expect(JSON.parse(text)).toEqual({ result: { token: SECRET_MASK } });
  });

  it("runs the call on the worker edge_id names (a number as a label, a string as a name), any worker for 0", async () => {
    const edge = await startTestWorker({ WORKER_NAME: "edge-seven" }, { labels: ["7"] });
    expect(edge).toBeDefined();
    const byNumber = await execute("probe", { params: { host: "a" }, edge_id: 7 });
    expect(await byNumber.json()).toEqual({ result: { probed: { host: "a" } } });
    expect(await latestCall("probe")).toMatchObject({ status: "succeeded", target: "7", workerName: "edge-seven" });
    const byName = await execute("probe", { params: { host: "b" }, edge_id: "local" });
    expect(await byName.json()).toEqual({ result: { probed: { host: "b" } } });
    expect(await latestCall("probe")).toMatchObject({ status: "succeeded", target: "local", workerName: "local" });
    const anyWorker = await execute("probe", { params: { host: "c" }, edge_id: 0 });
    expect(await anyWorker.json()).toEqual({ result: { probed: { host: "c" } } });
    expect((await latestCall("probe")).target).toBeNull();
    // An edge no live worker serves answers at once, storing nothing (the call would wait for ever).
    const before = await latestCall("probe");
    await expectOngridError(await execute("probe", { params: { host: "d" }, edge_id: 8 }), 404, "not-found", "edge 8 is not connected: no live worker has that name or label");
    expect((await latestCall("probe")).id).toBe(before.id);
  });
});

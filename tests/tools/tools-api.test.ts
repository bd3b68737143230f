import Ajv2020 from "ajv/dist/2020";
import Ajv from "ajv";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/server/db";
import { SKILL_TOOLS } from "@/lib/server/tools/skill-tools";
import * as promptRoute from "@/app/api/v1/personas/[name]/prompt/route";
import * as personaRoute from "@/app/api/v1/personas/[name]/route";
import { invoke } from "../helpers/route-client";
import { setUpTestConsole, type TestConsole } from "../helpers/test-console";
import { createPerson, type TestPerson } from "../helpers/test-people";
import { createToken, errorOf } from "../api/approvals-fixtures";
import { callToolExpecting, callToolRoute, createPersona, type Sender, DISK_USAGE_SCHEMA, getTools, LOG_ANALYZER_BODY, RESTART_SCHEMA, WIPE_SCHEMA, writeToolFixtures } from "./tools-fixtures";

// Issue 5 points 3–5: the LLM tool definitions (GET /api/v1/tools), tool calls through the policy
// (POST /api/v1/tools/call), with persona filtering, roles and the token persona rule.

let testConsole: TestConsole;
let viewer: TestPerson;
let operator: TestPerson;

const TOOL_NAMES = ["skill_search", "skill_load", "skill_read_resource", "skill_run_script"];

beforeAll(async () => {
  testConsole = await setUpTestConsole();
  writeToolFixtures(testConsole);
  // analyst: native skills of `analysis` only; ops: confirms mutating work, never wipes; guard: dual-sign.
  await createPersona("analyst", "read-only", { allow: ["*"] }, ["analysis"]);
  await createPersona("ops", "mutating-with-confirm", { allow: ["*"], deny: ["wipe_disk"] });
  await createPersona("guard", "dual-sign-required", { allow: ["*"] });
  await createPersona("narrow", "read-only", { allow: ["disk_usage", "log-analyzer"] });
  viewer = await createPerson("viewer");
  operator = await createPerson("operator");
});

type OpenAiTool = { type: string; function: { name: string; description: string; parameters: Record<string, unknown> } };
type AnthropicTool = { name: string; description: string; input_schema: Record<string, unknown> };

describe("GET /api/v1/tools", () => {
  it("serves openai definitions: the four skill_* tools, then each listed subprocess skill, every schema a valid JSON Schema", async () => {
    const response = await getTools("?persona=ops");
    expect(response.status).toBe(200);
    const { tools } = (await response.json()) as { tools: OpenAiTool[] };
    // wipe_disk is denied to ops; skill_load (name clash), loose_schema (no object root) are never tools.
    expect(tools.map((tool) => tool.function.name)).toEqual([...TOOL_NAMES, "disk_usage", "failing_check", "restart_service"]);
    for (const tool of tools) {
      expect(Object.keys(tool).sort()).toEqual(["function", "type"]);
      expect(tool.type).toBe("function");
      expect(Object.keys(tool.function).sort()).toEqual(["description", "name", "parameters"]);
      expect(tool.function.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
      expect(tool.function.description.length).toBeGreaterThan(10);
      expect(tool.function.parameters.type).toBe("object");
      // Strict ajv (unknown keywords, formats and ignored types are errors) under both dialects.
      new Ajv2020({ strict: true, allErrors: true }).compile(tool.function.parameters);
      new Ajv({ strict: true, allErrors: true }).compile(tool.function.parameters);
    }
    expect(tools.slice(0, 4).map((tool) => tool.function)).toEqual(SKILL_TOOLS);
    expect(tools[4]).toEqual({
      type: "function",
      function: { name: "disk_usage", description: "Measures the disk space a folder uses. Class safe: runs at once.", parameters: DISK_USAGE_SCHEMA },
    });
    expect(tools[6]!.function).toEqual({
      name: "restart_service",
      description: "Restarts a service. Class mutating: changes things; depending on your persona it may wait for a person's confirmation or be refused.",
      parameters: RESTART_SCHEMA,
    });
  });

  it("gives the skill_* tools closed object schemas that accept good arguments and refuse bad ones", async () => {
    const { tools } = (await (await getTools("?persona=ops")).json()) as { tools: OpenAiTool[] };
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    const validate = Object.fromEntries(tools.slice(0, 4).map((tool) => [tool.function.name, ajv.compile(tool.function.parameters)]));
    for (const tool of tools.slice(0, 4)) expect(tool.function.parameters.additionalProperties).toBe(false);
    expect(validate.skill_search!({ query: "rotate logs" })).toBe(true);
    expect(validate.skill_search!({ query: "rotate logs", limit: 50 })).toBe(true);
    expect(validate.skill_search!({ query: "" })).toBe(false);
    expect(validate.skill_search!({ query: "x".repeat(501) })).toBe(false);
    expect(validate.skill_search!({ query: "x", limit: 51 })).toBe(false);
    expect(validate.skill_search!({ query: "x", limit: 1.5 })).toBe(false);
    expect(validate.skill_search!({ query: "x", extra: 1 })).toBe(false);
    expect(validate.skill_load!({ skill_name: "log-analyzer" })).toBe(true);
    expect(validate.skill_load!({})).toBe(false);
    expect(validate.skill_read_resource!({ skill_name: "log-analyzer", path: "references/levels.md" })).toBe(true);
    expect(validate.skill_read_resource!({ skill_name: "log-analyzer" })).toBe(false);
    expect(validate.skill_run_script!({ skill_name: "log-analyzer", script: "count.sh", args: ["a", "b"] })).toBe(true);
    expect(validate.skill_run_script!({ skill_name: "log-analyzer", script: "count.sh" })).toBe(true);
    expect(validate.skill_run_script!({ skill_name: "log-analyzer", script: "count.sh", args: [1] })).toBe(false);
  });

  it("serves anthropic definitions with input_schema, the same tools in the same order", async () => {
    const openai = (await (await getTools("?persona=guard")).json()) as { tools: OpenAiTool[] };
    const response = await getTools("?persona=guard&format=anthropic");
    expect(response.status).toBe(200);
    const { tools } = (await response.json()) as { tools: AnthropicTool[] };
    expect(tools).toEqual(openai.tools.map((tool) => ({ name: tool.function.name, description: tool.function.description, input_schema: tool.function.parameters })));
    expect(tools.map((tool) => tool.name)).toEqual([...TOOL_NAMES, "disk_usage", "failing_check", "restart_service", "wipe_disk"]);
    expect(tools.at(-1)).toEqual({
      name: "wipe_disk",
      description: "Erases a disk. Class dangerous: depending on your persona it may wait for two approvers or be refused.",
      input_schema: WIPE_SCHEMA,
    });
    for (const tool of tools) new Ajv2020({ strict: true }).compile(tool.input_schema);
  });

  it("lists only the subprocess skills the persona's allow list names", async () => {
    const { tools } = (await (await getTools("?persona=narrow", viewer.headers)).json()) as { tools: OpenAiTool[] };
    expect(tools.map((tool) => tool.function.name)).toEqual([...TOOL_NAMES, "disk_usage"]);
  });

  it("needs a persona from a person, uses a token's own persona, and refuses a token naming another (403)", async () => {
    const missing = await getTools("");
    expect(missing.status).toBe(400);
    expect(await errorOf(missing)).toEqual({ code: "bad_request", message: "name the persona the tools are for: ?persona=<name>" });
    expect((await errorOf(await getTools("?persona=nobody"))).code).toBe("bad_request");
    expect(await errorOf(await getTools("?persona=ops&format=gemini"))).toEqual({ code: "bad_request", message: "format must be one of openai, anthropic" });

    const token = await createToken("narrow", operator.headers, "narrow-agent");
    const own = await getTools("", token);
    expect(own.status).toBe(200);
    expect(((await own.json()) as { tools: OpenAiTool[] }).tools.map((tool) => tool.function.name)).toEqual([...TOOL_NAMES, "disk_usage"]);
    expect((await getTools("?persona=narrow", token)).status).toBe(200);
    const other = await getTools("?persona=ops", token);
    expect(other.status).toBe(403);
    expect(await errorOf(other)).toEqual({ code: "forbidden", message: "token narrow-agent acts as persona narrow; it cannot call under persona ops" });
    expect((await getTools("?persona=ops", "anonymous")).status).toBe(401);
  });
});

describe("POST /api/v1/tools/call: read tools", () => {
  it("skill_search ranks the skills of both kinds the persona may see", async () => {
    const { result } = await callToolExpecting<{ result: { matches: Array<{ name: string; category: string; confidence: number; description: string }> } }>(
      200,
      { name: "skill_search", arguments: { query: "analyze log files" }, persona: "ops" },
      viewer.headers,
    );
    expect(result.matches[0]).toEqual({ name: "log-analyzer", description: "Analyzes log files and counts lines by level.", category: "analysis", confidence: expect.any(Number), available: true });
    for (const match of result.matches) {
      expect(Object.keys(match).sort()).toEqual(["available", "category", "confidence", "description", "name"]);
      expect(match.confidence).toBeGreaterThan(0);
      expect(match.confidence).toBeLessThanOrEqual(1);
      expect(Math.round(match.confidence * 100) / 100).toBe(match.confidence);
    }
    const disk = await callToolExpecting<{ result: { matches: Array<{ name: string }> } }>(200, { name: "skill_search", arguments: { query: "disk space", limit: 1 }, persona: "ops" });
    expect(disk.result.matches.map((match) => match.name)).toEqual(["disk_usage"]);
  });

  it("skill_search leaves out what the persona's categories and lists hide", async () => {
    const search = async (persona: string, query: string) =>
      (await callToolExpecting<{ result: { matches: Array<{ name: string }> } }>(200, { name: "skill_search", arguments: { query, limit: 50 }, persona })).result.matches.map((match) => match.name);
    // analyst sees native skills of `analysis` only (subprocess skills are not filtered by categories).
    expect(await search("analyst", "deploy service production")).not.toContain("deploy-service");
    expect(await search("ops", "deploy service production")).toContain("deploy-service");
    expect((await search("ops", "deploy service production"))[0]).toBe("deploy-service");
    // ops denies wipe_disk; guard does not.
    expect(await search("ops", "erase disk")).not.toContain("wipe_disk");
    expect(await search("guard", "erase disk")).toContain("wipe_disk");
    expect(await search("narrow", "restart service")).not.toContain("restart_service");
    expect(await search("narrow", "restart service")).toEqual([]);
    // An unavailable skill is still found (running it answers 409).
    expect(await search("ops", "host health")).toContain("health-check");
  });

  it("skill_search follows a persona's lists as soon as they change, on the same registry snapshot", async () => {
    await createPersona("shifting", "read-only", { allow: ["disk_usage"] });
    const search = async () =>
      (await callToolExpecting<{ result: { matches: Array<{ name: string }> } }>(200, { name: "skill_search", arguments: { query: "disk", limit: 50 }, persona: "shifting" })).result.matches.map((match) => match.name);
    expect(await search()).toEqual(["disk_usage"]);
    const body = { name: "shifting", description: "", permission_mode: "read-only", skills: { allow: ["wipe_disk"], deny: [] } };
    const updated = await invoke(personaRoute.PUT, "/api/v1/personas/shifting", { params: { name: "shifting" }, body, method: "PUT" });
    expect(updated.status).toBe(200);
    expect(await search()).toEqual(["wipe_disk"]);
    // Another persona with the very lists of the first gets the same answer (the lists are what count).
    await createPersona("shifting-twin", "read-only", { allow: ["disk_usage"] });
    expect((await callToolExpecting<{ result: { matches: Array<{ name: string }> } }>(200, { name: "skill_search", arguments: { query: "disk", limit: 50 }, persona: "shifting-twin" })).result.matches.map((match) => match.name)).toEqual(["disk_usage"]);
  });

  it("skill_load returns level 2 of a native skill and the schema of a subprocess one", async () => {
    const native = await callToolExpecting<{ result: unknown }>(200, { name: "skill_load", arguments: { skill_name: "log-analyzer" }, persona: "analyst" }, viewer.headers);
    expect(native.result).toEqual({
      name: "log-analyzer",
      kind: "native",
      category: "analysis",
      description: "Analyzes log files and counts lines by level.",
      whenToUse: "When a log file shows errors.",
      class: "safe",
      instructions: LOG_ANALYZER_BODY,
      resources: { scripts: ["scripts/count.sh"], references: ["references/levels.md"], templates: [], assets: ["assets/logo.png"], other: [] },
      tools: [],
      available: true,
      unavailableReason: null,
      warnings: [],
    });
    const subprocess = await callToolExpecting<{ result: unknown }>(200, { name: "skill_load", arguments: { skill_name: "restart_service" }, persona: "ops" });
    expect(subprocess.result).toEqual({ name: "restart_service", kind: "subprocess", description: "Restarts a service.", category: "ops", class: "mutating", schema: RESTART_SCHEMA });
  });

  it("skill_load answers 403 for a skill outside the persona's lists or categories, 404 for an unknown one", async () => {
    const hidden = await callToolRoute({ name: "skill_load", arguments: { skill_name: "deploy-service" }, persona: "analyst" });
    expect(hidden.status).toBe(403);
    expect(await errorOf(hidden)).toEqual({ code: "forbidden", message: "persona analyst may not use skill deploy-service (outside its skills list or categories)" });
    const denied = await callToolRoute({ name: "skill_load", arguments: { skill_name: "wipe_disk" }, persona: "ops" });
    expect(await errorOf(denied)).toEqual({ code: "forbidden", message: "persona ops may not use skill wipe_disk (outside its skills list)" });
    const unknown = await callToolRoute({ name: "skill_load", arguments: { skill_name: "no-such-skill" }, persona: "ops" });
    expect(unknown.status).toBe(404);
    expect(await errorOf(unknown)).toEqual({ code: "not_found", message: 'no skill named "no-such-skill"' });
  });

  it("skill_read_resource reads a text file, describes a binary one, refuses escapes, hidden skills and subprocess skills", async () => {
    const text = await callToolExpecting<{ result: Record<string, unknown> }>(200, { name: "skill_read_resource", arguments: { skill_name: "log-analyzer", path: "references/levels.md" }, persona: "analyst" }, viewer.headers);
    expect(text.result).toMatchObject({ path: "references/levels.md", size: 18, binary: false, truncated: false, text: "ERROR, WARN, INFO\n" });
    const binary = await callToolExpecting<{ result: Record<string, unknown> }>(200, { name: "skill_read_resource", arguments: { skill_name: "log-analyzer", path: "assets/logo.png" }, persona: "analyst" });
    expect(binary.result).toMatchObject({ path: "assets/logo.png", binary: true, text: null });
    for (const path of ["SKILL.md", "../deploy-service/scripts/deploy.sh", "references/../../../../etc/passwd", "/etc/passwd"]) {
      const escape = await callToolRoute({ name: "skill_read_resource", arguments: { skill_name: "log-analyzer", path }, persona: "analyst" });
      expect(escape.status, path).toBe(404);
    }
    expect((await callToolRoute({ name: "skill_read_resource", arguments: { skill_name: "deploy-service", path: "scripts/deploy.sh" }, persona: "analyst" })).status).toBe(403);
    const subprocess = await callToolRoute({ name: "skill_read_resource", arguments: { skill_name: "disk_usage", path: "run.sh" }, persona: "ops" });
    expect(subprocess.status).toBe(400);
    expect((await errorOf(subprocess)).code).toBe("bad_request");
  });

  it("validates arguments against the tool's schema (400 invalid_args with ajv details), and refuses unknown tools (404) and bodies", async () => {
    const response = await callToolRoute({ name: "skill_search", arguments: { limit: 0, extra: true }, persona: "ops" }, viewer.headers);
    expect(response.status).toBe(400);
    const error = (await response.json()) as { error: { code: string; message: string; details: Array<{ keyword: string; instancePath: string }> } };
    expect(error.error.code).toBe("invalid_args");
    expect(error.error.message).toBe("arguments of skill_search do not match its schema: must have required property 'query'; must NOT have additional properties: extra; /limit must be >= 1");
    expect(error.error.details.map((detail) => [detail.keyword, detail.instancePath])).toEqual([
      ["required", ""],
      ["additionalProperties", ""],
      ["minimum", "/limit"],
    ]);
    expect(await errorOf(await callToolRoute({ name: "no_such_tool", arguments: {} }))).toEqual({ code: "not_found", message: 'no tool named "no_such_tool"' });
    // A native skill is run through skill_run_script, not as a tool of its own; a clashing subprocess name is no tool.
    expect((await callToolRoute({ name: "log-analyzer", arguments: {} })).status).toBe(404);
    expect((await callToolRoute({ name: "loose_schema", arguments: {} })).status).toBe(404);
    expect(await errorOf(await callToolRoute({ name: "skill_search", args: { query: "x" } }))).toEqual({
      code: "bad_request",
      message: 'unknown field "args"; a tool call request has name, arguments, persona',
    });
    expect((await callToolRoute([])).status).toBe(400);
  });
});

describe("POST /api/v1/tools/call: runs through the policy", () => {
  it("runs a safe subprocess skill and answers its result with the exit code", async () => {
    const { result } = await callToolExpecting<{ result: Record<string, unknown> }>(200, { name: "disk_usage", arguments: { path: "/var" } }, operator.headers);
    expect(result).toEqual({ callId: expect.any(String), status: "succeeded", exitCode: 0, error: null, output: { used: 42 } });
    const row = await db().call.findUniqueOrThrow({ where: { id: result.callId as string } });
    expect([row.skill, row.persona, row.requestedBy, row.args]).toEqual(["disk_usage", "default", operator.email, '{"path":"/var"}']);
  });

  it("answers a failed run with 200 and its status, exit code, error and the tail of its stderr (why it failed)", async () => {
    const { result } = await callToolExpecting<{ result: Record<string, unknown> }>(200, { name: "failing_check", arguments: {} }, operator.headers);
    expect(result).toEqual({ callId: expect.any(String), status: "failed", exitCode: 3, error: "exited with code 3", output: null, stderrTail: ["broken"] });
  });

  it("runs a native script with argv and answers its stdout as text (scripts/ prefix tolerated)", async () => {
    const { result } = await callToolExpecting<{ result: Record<string, unknown> }>(200, { name: "skill_run_script", arguments: { skill_name: "log-analyzer", script: "count.sh", args: ["app.log", "two words"] } }, operator.headers);
    expect(result).toEqual({ callId: expect.any(String), status: "succeeded", exitCode: 0, error: null, output: "lines: 2\narg=app.log\narg=two words\n" });
    const prefixed = await callToolExpecting<{ result: Record<string, unknown> }>(200, { name: "skill_run_script", arguments: { skill_name: "log-analyzer", script: "scripts/count.sh" } }, operator.headers);
    expect(prefixed.result).toMatchObject({ status: "succeeded", output: "lines: 0\n" });
    const row = await db().call.findUniqueOrThrow({ where: { id: prefixed.result.callId as string } });
    // Stored as canonical JSON (RFC 8785: keys sorted), the text the call's digest covers.
    expect(row.args).toBe('{"args":[],"script":"count.sh"}');
  });

  it("refuses a script the skill does not have (400 invalid_args), a subprocess skill (400) and an unavailable skill (409)", async () => {
    const missing = await callToolRoute({ name: "skill_run_script", arguments: { skill_name: "log-analyzer", script: "../../deploy-service/scripts/deploy.sh" } }, operator.headers);
    expect(missing.status).toBe(400);
    expect((await errorOf(missing)).code).toBe("invalid_args");
    const subprocess = await callToolRoute({ name: "skill_run_script", arguments: { skill_name: "disk_usage", script: "run.sh" } }, operator.headers);
    expect(await errorOf(subprocess)).toEqual({ code: "bad_request", message: 'disk_usage is a subprocess skill, not a SKILL.md skill: call it as its own tool "disk_usage"' });
    const unavailable = await callToolRoute({ name: "skill_run_script", arguments: { skill_name: "health-check", script: "check.sh" } }, operator.headers);
    expect(unavailable.status).toBe(409);
  });

  it("refuses a viewer any run (403) while letting them read", async () => {
    for (const body of [
      { name: "disk_usage", arguments: { path: "/" } },
      { name: "skill_run_script", arguments: { skill_name: "log-analyzer", script: "count.sh" } },
    ]) {
      const response = await callToolRoute(body, viewer.headers);
      expect(response.status).toBe(403);
      expect((await errorOf(response)).message).toBe(`${body.name} runs a skill, which needs the operator role; ${viewer.email} is a viewer`);
    }
    expect(await db().call.count({ where: { requestedBy: viewer.email } })).toBe(0);
  });

  it("refuses mutating work under a read-only persona (403), for subprocess and native skills", async () => {
    const subprocess = await callToolRoute({ name: "restart_service", arguments: { service: "web" } }, operator.headers);
    expect(subprocess.status).toBe(403);
    expect((await errorOf(subprocess)).code).toBe("forbidden");
    const native = await callToolRoute({ name: "skill_run_script", arguments: { skill_name: "deploy-service", script: "deploy.sh" } }, operator.headers);
    expect(native.status).toBe(403);
  });

  it("answers 202 awaiting_confirmation for mutating work under mutating-with-confirm", async () => {
    const body = await callToolExpecting<Record<string, unknown>>(202, { name: "restart_service", arguments: { service: "web" }, persona: "ops" }, operator.headers);
    const callId = body.callId as string;
    expect(body).toEqual({ callId, status: "awaiting_confirmation", message: `Call ${callId} awaits confirmation by a person in the console: /calls/${callId}`, link: `/calls/${callId}` });
    expect((await db().call.findUniqueOrThrow({ where: { id: callId } })).status).toBe("awaiting_confirmation");
    const native = await callToolExpecting<Record<string, unknown>>(202, { name: "skill_run_script", arguments: { skill_name: "deploy-service", script: "deploy.sh" }, persona: "ops" }, operator.headers);
    expect(native.status).toBe("awaiting_confirmation");
  });

  it("answers 202 awaiting_approval for dangerous work under dual-sign-required", async () => {
    const body = await callToolExpecting<Record<string, unknown>>(202, { name: "wipe_disk", arguments: { disk: "/dev/sdz" }, persona: "guard" }, operator.headers);
    const callId = body.callId as string;
    expect(body).toEqual({ callId, status: "awaiting_approval", message: `Call ${callId} awaits approval by two approvers in the console: /calls/${callId}`, link: `/calls/${callId}` });
    expect((await db().approval.findUniqueOrThrow({ where: { callId } })).status).toBe("pending");
  });

  it("refuses a skill outside the persona's lists (403), an unknown persona (400)", async () => {
    const denied = await callToolRoute({ name: "wipe_disk", arguments: {}, persona: "ops" }, operator.headers);
    expect(await errorOf(denied)).toEqual({ code: "forbidden", message: "persona ops may not use skill wipe_disk (outside its skills list)" });
    const hidden = await callToolRoute({ name: "skill_run_script", arguments: { skill_name: "deploy-service", script: "deploy.sh" }, persona: "analyst" }, operator.headers);
    expect(hidden.status).toBe(403);
    expect((await callToolRoute({ name: "disk_usage", arguments: { path: "/" }, persona: "ghost" }, operator.headers)).status).toBe(400);
  });

  it("lets a token act only as its own persona (naming another → 403)", async () => {
    const token = await createToken("ops", operator.headers, "ops-agent");
    const other = await callToolRoute({ name: "wipe_disk", arguments: {}, persona: "guard" }, token);
    expect(other.status).toBe(403);
    expect(await errorOf(other)).toEqual({ code: "forbidden", message: "token ops-agent acts as persona ops; it cannot call under persona guard" });
    const readOther = await callToolRoute({ name: "skill_search", arguments: { query: "disk" }, persona: "guard" }, token);
    expect(readOther.status).toBe(403);
    const own = await callToolExpecting<Record<string, unknown>>(202, { name: "restart_service", arguments: { service: "worker" } }, token);
    expect(own.status).toBe("awaiting_confirmation");
    const row = await db().call.findUniqueOrThrow({ where: { id: own.callId as string } });
    expect([row.persona, row.tokenName]).toEqual(["ops", "ops-agent"]);
  });

  it("refuses a subprocess tool's invalid arguments with the skill's ajv errors (400), spawning nothing", async () => {
    const before = await db().call.count();
    const response = await callToolRoute({ name: "restart_service", arguments: { service: "db" }, persona: "ops" }, operator.headers);
    expect(response.status).toBe(400);
    const error = (await response.json()) as { error: { code: string; details: Array<{ keyword: string; instancePath: string }> } };
    expect(error.error.code).toBe("invalid_args");
    expect(error.error.details.map((detail) => [detail.keyword, detail.instancePath])).toEqual([["enum", "/service"]]);
    expect(await db().call.count()).toBe(before);
  });
});

describe("GET /api/v1/personas/{name}/prompt", () => {
  const preamble =
    "## Skills\n\n" +
    "You can use the skills listed below: folders of instructions, scripts and reference files for particular tasks. " +
    "Before you use a skill, call skill_load with its name to read its instructions. " +
    "Call skill_search to find a skill for a task. " +
    "Read a skill's files with skill_read_resource and run its scripts with skill_run_script.\n\n";

  const prompt = (name: string, query = "", as: Sender = "admin") => invoke(promptRoute.GET, `/api/v1/personas/${name}/prompt${query}`, { params: { name }, as });

  it("lists the available native skills the persona may see, one line each, with when to use", async () => {
    const response = await prompt("ops", "", viewer.headers);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      persona: "ops",
      prompt:
        preamble +
        "- log-analyzer (analysis): Analyzes log files and counts lines by level. When to use: When a log file shows errors.\n" +
        "- deploy-service (devops): Deploys a service to production. When to use: When a release is tagged and approved.\n",
    });
  });

  it("filters by categories and lists, says so when nothing is left, and serves text on request", async () => {
    expect(((await (await prompt("analyst")).json()) as { prompt: string }).prompt).toBe(
      preamble + "- log-analyzer (analysis): Analyzes log files and counts lines by level. When to use: When a log file shows errors.\n",
    );
    await createPersona("subprocess-only", "read-only", { allow: ["disk_usage"] });
    expect(((await (await prompt("subprocess-only")).json()) as { prompt: string }).prompt).toBe(preamble + "No skills are available to you.\n");
    const text = await prompt("narrow", "?format=text");
    expect(text.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(await text.text()).toBe(preamble + "- log-analyzer (analysis): Analyzes log files and counts lines by level. When to use: When a log file shows errors.\n");
  });

  it("answers 404 for an unknown persona and 403 to a token asking for another persona's prompt", async () => {
    expect(await errorOf(await prompt("ghost"))).toEqual({ code: "not_found", message: 'no persona named "ghost"' });
    const token = await createToken("analyst", operator.headers, "analyst-agent");
    expect((await prompt("analyst", "", token)).status).toBe(200);
    const other = await prompt("ops", "", token);
    expect(other.status).toBe(403);
    expect((await errorOf(other)).code).toBe("forbidden");
  });
});

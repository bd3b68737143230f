import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { LoggingMessageNotificationSchema, type LoggingMessageNotification } from "@modelcontextprotocol/sdk/types.js";
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import * as mcpRoute from "@/app/api/mcp/route";
import { db } from "@/lib/server/db";
import { SKILL_TOOLS } from "@/lib/server/tools/skill-tools";
import { setUpTestConsole, writeNativeSkill, type TestConsole } from "../helpers/test-console";
import { createPerson, signIn, TEST_ADMIN, type TestPerson } from "../helpers/test-people";
import { createToken } from "../api/approvals-fixtures";
import { createPersona, DISK_USAGE_SCHEMA, getTools, writeToolFixtures } from "../tools/tools-fixtures";

// Issue 5 point 6: the MCP server at /api/mcp, driven by the SDK's own client over Streamable HTTP.
// The client's `fetch` hands each request to the route handler in-process, as Next.js would.

const MCP_URL = "http://127.0.0.1/api/mcp";

let testConsole: TestConsole;
let operator: TestPerson;
let opsToken: Record<string, string>;
let guardToken: Record<string, string>;
const openClients: Client[] = [];

/** The route handler as the client's fetch: one method each, like Next.js dispatches them. */
async function routeFetch(url: string | URL, init?: RequestInit): Promise<Response> {
  const request = new Request(url, init);
  if (request.method === "POST") return mcpRoute.POST(request);
  if (request.method === "GET") return mcpRoute.GET(request);
  if (request.method === "DELETE") return mcpRoute.DELETE(request);
  return new Response(null, { status: 405 });
}

/** Connects an SDK client with `headers` (e.g. a bearer token); its log notifications land in `logs`. */
async function connect(headers: Record<string, string>): Promise<{ client: Client; logs: LoggingMessageNotification["params"][] }> {
  const logs: LoggingMessageNotification["params"][] = [];
  const client = new Client({ name: "skill-console-tests", version: "1.0.0" });
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
    logs.push(notification.params);
  });
  const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), { requestInit: { headers }, fetch: routeFetch });
  await client.connect(transport);
  openClients.push(client);
  return { client, logs };
}

beforeAll(async () => {
  testConsole = await setUpTestConsole();
  writeToolFixtures(testConsole);
  // Proves the log notifications arrive while the call runs: the script waits for a file the test
  // writes only when the first stderr line reached the client.
  writeNativeSkill(testConsole.nativeRoot, "testing", "wait-for-file", {
    frontmatter: "name: wait-for-file\ndescription: Waits until a file exists.\nclass: safe\ntimeout_seconds: 10",
    files: { "scripts/wait.sh": '#!/bin/bash\necho "waiting for $1" >&2\nwhile [ ! -f "$1" ]; do sleep 0.05; done\necho "seen" >&2\necho released\n' },
  });
  await createPersona("ops", "mutating-with-confirm", { allow: ["*"], deny: ["wipe_disk"] });
  await createPersona("guard", "dual-sign-required", { allow: ["*"] });
  operator = await createPerson("operator");
  opsToken = await createToken("ops", operator.headers, "mcp-ops");
  guardToken = await createToken("guard", operator.headers, "mcp-guard");
});

afterEach(async () => {
  for (const client of openClients.splice(0)) await client.close();
});

describe("MCP server at /api/mcp", () => {
  it("initializes with the tools and logging capabilities and lists the same tools as GET /api/v1/tools", async () => {
    const { client } = await connect(opsToken);
    expect(client.getServerVersion()).toEqual({ name: "skill-console", version: "0.1.0" });
    expect(client.getServerCapabilities()).toMatchObject({ tools: {}, logging: {} });
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["skill_search", "skill_load", "skill_read_resource", "skill_run_script", "disk_usage", "failing_check", "restart_service"]);
    const http = (await (await getTools("", opsToken)).json()) as { tools: Array<{ function: { name: string; description: string; parameters: unknown } }> };
    expect(tools.map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.inputSchema }))).toEqual(http.tools.map((tool) => tool.function));
    expect(tools[0]!.inputSchema).toEqual(SKILL_TOOLS[0]!.parameters);
    expect(tools[4]!.inputSchema).toEqual(DISK_USAGE_SCHEMA);
  });

  it("runs a safe subprocess skill, answering its result as JSON text, with its stderr as log notifications", async () => {
    const { client, logs } = await connect(opsToken);
    const answer = await client.callTool({ name: "disk_usage", arguments: { path: "/srv" } });
    const content = answer.content as Array<{ type: string; text: string }>;
    expect(content).toHaveLength(1);
    expect(content[0]!.type).toBe("text");
    const result = JSON.parse(content[0]!.text) as { callId: string };
    expect(result).toEqual({ callId: expect.any(String), status: "succeeded", exitCode: 0, error: null, output: { used: 42 } });
    expect(answer.isError).toBeUndefined();
    expect(logs).toEqual([{ level: "info", logger: "disk_usage", data: 'measuring {"path":"/srv"}' }]);
    const row = await db().call.findUniqueOrThrow({ where: { id: result.callId } });
    expect([row.persona, row.tokenName, row.status]).toEqual(["ops", "mcp-ops", "succeeded"]);
  });

  it("runs a native script, sending each stderr line as a log notification while it runs", async () => {
    const { client, logs } = await connect(opsToken);
    const answer = await client.callTool({ name: "skill_run_script", arguments: { skill_name: "log-analyzer", script: "count.sh", args: ["app.log"] } });
    const result = JSON.parse((answer.content as Array<{ text: string }>)[0]!.text) as Record<string, unknown>;
    expect(result).toMatchObject({ status: "succeeded", exitCode: 0, error: null, output: "lines: 1\narg=app.log\n" });
    expect(logs).toEqual([
      { level: "info", logger: "log-analyzer", data: "reading app.log" },
      { level: "info", logger: "log-analyzer", data: "counted" },
    ]);
  });

  it("sends a stderr line as soon as the script writes it, before the call ends", async () => {
    const { client } = await connect(opsToken);
    const gate = path.join(testConsole.dir, "gate");
    const seen: string[] = [];
    // Replaces connect()'s handler: opens the gate when the first line arrives.
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      seen.push(String(notification.params.data));
      if (seen.length === 1) fs.writeFileSync(gate, "open");
    });
    const answer = await client.callTool({ name: "skill_run_script", arguments: { skill_name: "wait-for-file", script: "wait.sh", args: [gate] } });
    expect(JSON.parse((answer.content as Array<{ text: string }>)[0]!.text)).toMatchObject({ status: "succeeded", output: "released\n" });
    expect(seen).toEqual([`waiting for ${gate}`, "seen"]);
  });

  it("answers a read tool with its JSON result", async () => {
    const { client } = await connect(opsToken);
    const answer = await client.callTool({ name: "skill_search", arguments: { query: "disk space", limit: 1 } });
    const result = JSON.parse((answer.content as Array<{ text: string }>)[0]!.text) as { matches: Array<{ name: string }> };
    expect(result.matches.map((match) => match.name)).toEqual(["disk_usage"]);
  });

  it("answers a dangerous call under dual-sign as awaiting approval, with the call id and the console link", async () => {
    const { client } = await connect(guardToken);
    const answer = await client.callTool({ name: "wipe_disk", arguments: { disk: "/dev/sdz" } });
    const call = await db().call.findFirstOrThrow({ where: { skill: "wipe_disk", tokenName: "mcp-guard" } });
    expect(call.status).toBe("awaiting_approval");
    expect(answer.isError).toBeUndefined();
    expect(answer.content).toEqual([{ type: "text", text: `Call ${call.id} awaits approval by two approvers in the console: http://127.0.0.1/calls/${call.id}` }]);
    expect((await db().approval.findUniqueOrThrow({ where: { callId: call.id } })).status).toBe("pending");
  });

  it("answers a mutating call under mutating-with-confirm as awaiting confirmation", async () => {
    const { client } = await connect(opsToken);
    const answer = await client.callTool({ name: "restart_service", arguments: { service: "web" } });
    const text = (answer.content as Array<{ text: string }>)[0]!.text;
    expect(text).toMatch(/^Call [0-9a-f-]{36} awaits confirmation by a person in the console: http:\/\/127\.0\.0\.1\/calls\/[0-9a-f-]{36}$/);
  });

  it("answers refusals, invalid arguments and failed runs as error results with the reason", async () => {
    const { client } = await connect(opsToken);
    const denied = await client.callTool({ name: "wipe_disk", arguments: {} });
    expect(denied).toEqual({ content: [{ type: "text", text: "forbidden: persona ops may not use skill wipe_disk (outside its skills list)" }], isError: true });
    // On the audit trail, as over /api/v1/tools/call (issue 10 point 4).
    const [refusal] = await db().auditEvent.findMany({ where: { action: "access.refused" }, orderBy: { id: "desc" }, take: 1 });
    expect(refusal).toMatchObject({ actor: expect.stringMatching(/^token:mcp-ops \(/) });
    expect(JSON.parse(refusal!.details)).toMatchObject({ method: "POST", path: "/api/mcp", code: "forbidden", reason: "persona ops may not use skill wipe_disk (outside its skills list)" });
    const invalid = await client.callTool({ name: "restart_service", arguments: { service: "db" } });
    expect(invalid).toEqual({
      content: [{ type: "text", text: "invalid_args: args do not match the schema of restart_service (/service must be equal to one of the allowed values: web, worker)" }],
      isError: true,
    });
    const unknown = await client.callTool({ name: "no_such_tool", arguments: {} });
    expect(unknown).toEqual({ content: [{ type: "text", text: 'not_found: no tool named "no_such_tool"' }], isError: true });
    const failed = await client.callTool({ name: "failing_check", arguments: {} });
    expect(failed.isError).toBe(true);
    expect(JSON.parse((failed.content as Array<{ text: string }>)[0]!.text)).toMatchObject({ status: "failed", exitCode: 3 });
  });

  it("refuses requests without a valid API token (401, WWW-Authenticate: Bearer) — a session cookie is not enough", async () => {
    // The SDK's StreamableHTTPError carries the HTTP status as `code`.
    await expect(connect({})).rejects.toMatchObject({ code: 401, message: expect.stringContaining("send an API token as Authorization: Bearer <token>") });
    await expect(connect({ authorization: "Bearer skc_not-a-real-token" })).rejects.toMatchObject({ code: 401, message: expect.stringContaining("the API token is invalid or revoked") });
    const initialize = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "curl", version: "1" } } };
    const cookie = await signIn(TEST_ADMIN.email, TEST_ADMIN.password);
    for (const headers of [{}, cookie, { authorization: "Basic YWRtaW46YWRtaW4=" }]) {
      const response = await routeFetch(MCP_URL, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
        body: JSON.stringify(initialize),
      });
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe('Bearer realm="skill-console"');
      expect(((await response.json()) as { error: { code: number } }).error.code).toBe(-32001);
    }
  });

  it("answers GET and DELETE with 405 (stateless: no standalone stream, no session), and 401 before that without a token", async () => {
    for (const method of ["GET", "DELETE"]) {
      const response = await routeFetch(MCP_URL, { method, headers: { accept: "text/event-stream", ...opsToken } });
      expect(response.status).toBe(405);
      expect(response.headers.get("allow")).toBe("POST");
      const anonymous = await routeFetch(MCP_URL, { method, headers: { accept: "text/event-stream" } });
      expect(anonymous.status).toBe(401);
    }
  });
});

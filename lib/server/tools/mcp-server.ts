import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { requestBodyTooLargeMessage } from "@modelcontextprotocol/sdk/server/requestBody.js";
import { JsonShapeError, JsonShapeScanner } from "@/lib/validation/json-shape";
import { JsonText } from "@/lib/validation/json-text";
import { recordRefusedAttempt } from "../audit/refused-attempts";
import { BodyTooLarge, PARSED_BESIDE_TEXT_MAX_BYTES, readScannedBody } from "../http/api-route";
import { noteBodyOwner } from "../http/body-budget";
import { stringifyJson } from "../http/stored-json";
import { auditActor } from "../approvals/audit-actor";
import { MAX_JSON_DEPTH } from "@/lib/validation/json-depth";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Identity } from "@/lib/types/identity";
import { formatAjvErrors, type AjvError } from "@/lib/validation/ajv";
import { identify } from "../auth/identity";
import { ensureConsoleStarted } from "../console-startup";
import { config } from "../env";
import { AppError } from "../errors";
import { getRegistry } from "../skills/registry";
import { awaitingMessage, callLink, callTool, SKILL_TOOL_ARGUMENTS_MAX_BYTES, type ToolRunResult } from "./call-tool";
import { isSkillToolName, toolDefinitionsFor } from "./skill-tools";
import { resolveToolPersona } from "./tool-persona";

/** Name and version the MCP server announces in its `initialize` answer. */
export const MCP_SERVER_INFO = { name: "skill-console", version: "0.1.0" } as const;

/**
 * Most JSON-RPC messages one POST may batch (review 5). The MCP revisions the SDK negotiates by default
 * have no batches; older clients may send a few. Each tools/call in a batch is real work on the
 * console's one event loop (a skill_search over every skill, a run), so a batch of 100 would turn one
 * request into 100; a larger batch is refused as a whole with 400 / -32600 before anything runs.
 */
export const MAX_MCP_BATCH_MESSAGES = 10;

/** JSON-RPC error code of an unauthenticated request (the SDK's own servers use -32001 for auth failures). */
const UNAUTHENTICATED_RPC_CODE = -32001;

/**
 * A JSON-RPC error answer outside any request (`id: null`), as the SDK's transport writes its own
 * (e.g. 405 for GET in stateless mode). `headers` are added.
 */
export function jsonRpcErrorResponse(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status, headers });
}

/**
 * Answers GET and DELETE on `/api/mcp`: the server is stateless (no session to resume or end, no
 * standalone event stream), so like the SDK's stateless examples it answers 405 with `Allow: POST`.
 */
export function mcpMethodNotAllowed(): Response {
  return jsonRpcErrorResponse(405, -32000, "Method not allowed: this MCP server is stateless; send JSON-RPC messages with POST.", { allow: "POST" });
}

/**
 * Serves one POST to `/api/mcp` (issue 5 point 6; DESIGN.md HTTP interface): the MCP server of the
 * console over Streamable HTTP, stateless — a new Server and WebStandardStreamableHTTPServerTransport
 * for every request. Only `Authorization: Bearer <API token>` is accepted (no session cookie: an MCP
 * client is an agent); without one, or with a bad or revoked token, the answer is 401 with
 * `WWW-Authenticate: Bearer` and a JSON-RPC error. The tools are those of `GET /api/v1/tools` for the
 * token's persona; calls go through callTool (role, lists, policy, confirmation, dual-sign, audit).
 * The body (at most SKILL_ARGS_LIMIT_BYTES and SKILL_ARGS_MAX_NODES values: 413 past either, 400 /
 * -32700 when not JSON) is read here,
 * after authentication, so a batch over MAX_MCP_BATCH_MESSAGES is refused (400 / -32600) unread by the
 * server.
 */
export async function handleMcpRequest(request: Request): Promise<Response> {
  const identity = await mcpIdentity(request);
  if (identity instanceof Response) return identity;

  const limitBytes = config().argsLimitBytes;
  // Read as readJsonBody reads: chunk by chunk, values and depth counted before parsing (issue 10
  // point 1), and a single tools/call's arguments cut out, handed to callTool as text (JsonText), which
  // the validation thread parses off the main thread.
  const shape = new JsonShapeScanner({ maxNodes: config().argsMaxNodes, maxDepth: MAX_JSON_DEPTH + 4, capture: ARGUMENTS_PATH });
  let bytes: Buffer;
  try {
    bytes = await readScannedBody(request, limitBytes, shape);
  } catch (error) {
    if (error instanceof BodyTooLarge) return jsonRpcErrorResponse(413, -32000, requestBodyTooLargeMessage(limitBytes));
    // Past the bytes in flight (429/503), or a body that stalled (408): the rest is left unread.
    if (error instanceof AppError) {
      const retryAfter = (error.details as { retryAfterSeconds?: number } | undefined)?.retryAfterSeconds;
      return jsonRpcErrorResponse(error.status, -32000, error.message, { connection: "close", ...(retryAfter ? { "retry-after": String(retryAfter) } : {}) });
    }
    if (!(error instanceof JsonShapeError)) throw error;
    if (error.kind === "nodes") return jsonRpcErrorResponse(413, -32000, `request body has more than ${error.limit} JSON values (SKILL_ARGS_MAX_NODES)`);
    if (error.kind === "duplicate") return jsonRpcErrorResponse(400, -32600, `Invalid Request: the body has ${error.key} twice`);
    return jsonRpcErrorResponse(400, -32600, `Invalid Request: the body nests deeper than ${error.limit} levels`);
  }
  // A batch is parsed whole here and checked by the SDK on this thread: only small ones.
  if (bytes.byteLength > MAX_PARSED_HERE_BYTES && firstByte(bytes) === 0x5b) {
    return jsonRpcErrorResponse(413, -32000, `a batch may be at most ${MAX_PARSED_HERE_BYTES} bytes; send large calls one message at a time`);
  }
  const span = shape.capturedSpan;
  // So is everything but a tools/call's arguments (params._meta, the id, the tool's name).
  const besideArguments = bytes.byteLength - (span ? span.end - span.start : 0);
  if (besideArguments > MAX_PARSED_HERE_BYTES) {
    return jsonRpcErrorResponse(413, -32000, `a message may have at most ${MAX_PARSED_HERE_BYTES} bytes besides params.arguments (it has ${besideArguments})`);
  }
  let parsedBody: unknown;
  let argumentsText: JsonText | undefined;
  try {
    parsedBody = JSON.parse(span ? Buffer.concat([bytes.subarray(0, span.start), Buffer.from("null"), bytes.subarray(span.end)]).toString("utf8") : bytes.toString("utf8"));
  } catch {
    return jsonRpcErrorResponse(400, -32700, "Parse error: Invalid JSON");
  }
  if (span) {
    const message = parsedBody as { method?: unknown; params: { arguments: unknown } };
    // The scanner and JSON.parse read keys alike (and a duplicated key on the path is refused above).
    if (message.params?.arguments !== null) return jsonRpcErrorResponse(400, -32600, "Invalid Request: params.arguments could not be read");
    const text = bytes.subarray(span.start, span.end).toString("utf8");
    if (message.method === "tools/call") {
      argumentsText = new JsonText(text);
      message.params.arguments = {};
    } else {
      if (bytes.byteLength > MAX_PARSED_HERE_BYTES) return jsonRpcErrorResponse(413, -32000, `a ${String(message.method).slice(0, 100)} message may be at most ${MAX_PARSED_HERE_BYTES} bytes`);
      try {
        message.params.arguments = JSON.parse(text);
      } catch {
        return jsonRpcErrorResponse(400, -32700, "Parse error: Invalid JSON");
      }
    }
  }
  if (Array.isArray(parsedBody) && parsedBody.length > MAX_MCP_BATCH_MESSAGES) {
    return jsonRpcErrorResponse(400, -32600, `Invalid Request: a batch may hold at most ${MAX_MCP_BATCH_MESSAGES} messages; send them one by one`);
  }

  const server = createMcpServer(identity, new URL(request.url).origin, (error) => recordRefusedAttempt(request, error, { actor: auditActor(identity), actorId: identity.userId }), argumentsText);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    maxRequestBodySize: limitBytes,
  });
  await server.connect(transport);
  return transport.handleRequest(request, { parsedBody });
}

/**
 * The agent behind an MCP request: its API token's identity (`Authorization: Bearer <token>` only; a
 * session cookie alone does not count), or the 401 answer (JSON-RPC error, `WWW-Authenticate: Bearer`)
 * for a missing, malformed, unknown or revoked token. Every method of `/api/mcp` asks this first, so
 * nothing about the server is told to an anonymous caller.
 */
export async function mcpIdentity(request: Request): Promise<Identity | Response> {
  if (!/^Bearer\s+\S+\s*$/i.test(request.headers.get("authorization") ?? "")) {
    return unauthenticated("send an API token as Authorization: Bearer <token> (create one on the console's Tokens page)");
  }
  let identity: Identity | null;
  try {
    await ensureConsoleStarted();
    identity = await identify(request);
  } catch (error) {
    if (error instanceof AppError && error.code === "unauthenticated") return unauthenticated(error.message);
    throw error;
  }
  if (!identity || identity.token === null) return unauthenticated("send an API token as Authorization: Bearer <token>");
  noteBodyOwner(request, `person:${identity.userId}`);
  return identity;
}

function unauthenticated(message: string): Response {
  return jsonRpcErrorResponse(401, UNAUTHENTICATED_RPC_CODE, message, { "www-authenticate": 'Bearer realm="skill-console"' });
}

/** Largest part of an MCP body parsed on the main thread (a batch, a message that is not tools/call, a tools/call besides its arguments), in bytes. */
const MAX_PARSED_HERE_BYTES = PARSED_BESIDE_TEXT_MAX_BYTES;

function firstByte(bytes: Buffer): number {
  for (const byte of bytes) if (byte !== 0x20 && byte !== 0x0a && byte !== 0x0d && byte !== 0x09) return byte;
  return -1;
}

/** Where a single JSON-RPC message keeps a tool call's arguments. */
const ARGUMENTS_PATH = ["params", "arguments"];

/** The skill a skill_run_script call names (its arguments as text are small: SKILL_TOOL_ARGUMENTS_MAX_BYTES), for the log notifications' logger. */
function runScriptSkillName(args: unknown): string | null {
  let value = args;
  if (args instanceof JsonText) {
    if (args.text.length > SKILL_TOOL_ARGUMENTS_MAX_BYTES) return null;
    try {
      value = JSON.parse(args.text);
    } catch {
      return null;
    }
  }
  const skillName = (value as { skill_name?: unknown } | null)?.skill_name;
  return typeof skillName === "string" ? skillName : null;
}

/**
 * The MCP server of one request for an agent's identity: `tools/list` gives the tool definitions of the
 * token's persona (inputSchema = the tool's parameters); `tools/call` runs callTool and answers the
 * result as one text content holding its JSON; refusals and failures are `isError` results carrying the
 * message; a call awaiting a person is a text saying so with the call id and the console link
 * (absolute, on `origin`). While a run executes, each stderr line is sent as a `notifications/message`
 * log notification (level info, logger = the skill's name) on the request's stream. Declares the
 * `tools` and `logging` capabilities. `argumentsText`: the arguments of this request's one `tools/call`,
 * as read from its body without parsing them (the SDK then sees `{}`).
 */
export function createMcpServer(identity: Identity, origin: string, onRefused: (error: unknown) => Promise<void> = async () => undefined, argumentsText?: JsonText): Server {
  const server = new Server(MCP_SERVER_INFO, {
    capabilities: { tools: {}, logging: {} },
    instructions:
      "Tools of the skill console. Start with skill_search (or the skills in your instructions), read a skill with skill_load, " +
      "then run it. Every run passes the console's policy: some wait for a person's confirmation or two approvers.",
  });
  const persona = () => resolveToolPersona(identity, null, { required: false });

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const tools = toolDefinitionsFor(await persona(), await getRegistry());
    return {
      tools: tools.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.parameters as { type: "object"; [key: string]: unknown } })),
    };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name } = request.params;
    const args: unknown = argumentsText ?? request.params.arguments ?? {};
    const logger = name === "skill_run_script" ? (runScriptSkillName(args) ?? name) : name;
    let notifications: Promise<void> = Promise.resolve();
    const onStderr = (line: string) => {
      if (extra.signal.aborted) return;
      notifications = notifications
        .then(() => extra.sendNotification({ method: "notifications/message", params: { level: "info", logger, data: line } }))
        .catch(() => undefined);
    };
    try {
      const answer = await callTool({ identity, persona: await persona(), name, arguments: args, onStderr });
      await notifications;
      if (answer.status === 202) {
        const { callId, status } = answer.body;
        return { content: [{ type: "text", text: awaitingMessage(callId, status, new URL(callLink(callId), origin).href) }] };
      }
      // A run that ended in any state but succeeded (failed, timed out, cancelled…) is an error result.
      const isRun = name === "skill_run_script" || !isSkillToolName(name);
      const failed = isRun && (answer.body.result as ToolRunResult).status !== "succeeded";
      return { content: [{ type: "text", text: stringifyJson(answer.body.result) }], ...(failed ? { isError: true } : {}) };
    } catch (error) {
      await notifications;
      // A tool call the role or the persona refused is on the audit trail, as over /api/v1/tools/call.
      await onRefused(error);
      return { content: [{ type: "text", text: errorText(error) }], isError: true };
    }
  });
  return server;
}

/** The text of a refused or failed tool call: `<code>: <message>` (ajv's errors spelled out for invalid args). */
function errorText(error: unknown): string {
  if (error instanceof AppError) {
    const details = error.code === "invalid_args" && Array.isArray(error.details) ? formatAjvErrors(error.details as AjvError[]) : "";
    return `${error.code}: ${error.message}${details && !error.message.includes(details) ? ` (${details})` : ""}`;
  }
  console.error("MCP tool call failed:", error);
  return "internal: Internal error; see the console's log.";
}

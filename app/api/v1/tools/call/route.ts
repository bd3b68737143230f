import { config } from "@/lib/server/env";
import { apiRoute, readJsonBody } from "@/lib/server/http/api-route";
import { callTool } from "@/lib/server/tools/call-tool";
import { parseToolCallRequest } from "@/lib/server/tools/tool-call-request";
import { resolveToolPersona } from "@/lib/server/tools/tool-persona";
import { checkRequestBody } from "@/lib/server/http/request-body";
import { jsonResponse } from "@/lib/server/http/stored-json";
import { TOOL_CALL_REQUEST_SCHEMA } from "@/lib/validation/call-requests";

/** The arguments are read as text and parsed off the main thread (issue 10 point 1). */
const ARGUMENTS_PATH = ["arguments"];

/**
 * `POST /api/v1/tools/call` body `{"name", "arguments", "persona"?}` (viewer and above; running a skill
 * needs operator) → `200 {"result": …}` for a read tool or a run that reached its end state, `202
 * {"callId", "status", "message", "link"}` for a run that awaits confirmation or approval (issue 5
 * point 5). A token acts as its own persona (naming another → 403); a person runs under the persona
 * named, or `default`. Errors: 400 `bad_request`/`invalid_args`, 403 `forbidden` (role, lists,
 * policy), 404 `not_found` (tool or skill), 409 `conflict` (unavailable skill), 413 past the args limit.
 */
export const POST = apiRoute(async (request: Request, _context: unknown, identity) => {
  const raw = await readJsonBody(request, config().argsLimitBytes, config().argsMaxNodes, { keepText: ARGUMENTS_PATH });
  const body = parseToolCallRequest(checkRequestBody(raw, TOOL_CALL_REQUEST_SCHEMA, { what: "a tool call request", explain: parseToolCallRequest }));
  const persona = await resolveToolPersona(identity, body.persona, { required: false });
  const answer = await callTool({ identity, persona, name: body.name, arguments: body.arguments });
  return jsonResponse(answer.body, { status: answer.status });
});

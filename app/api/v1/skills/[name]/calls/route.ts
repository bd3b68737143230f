import { parseCallRequest } from "@/lib/server/calls/call-request";
import { requestCall } from "@/lib/server/requests/request-call";
import { config } from "@/lib/server/env";
import { apiRoute, readJsonBody } from "@/lib/server/http/api-route";
import { checkRequestBody } from "@/lib/server/http/request-body";
import { jsonResponse } from "@/lib/server/http/stored-json";
import { CALL_REQUEST_SCHEMA } from "@/lib/validation/call-requests";

/** The args are read as text and parsed off the main thread (issue 10 point 1). */
const ARGS_PATH = ["args"];

/**
 * `POST /api/v1/skills/{name}/calls` (operator and above) body `{"args": {...}, "persona": "...",
 * "target": "<worker name or label>", "wait": true}` → 200 `{call}` at its end state; 202 `{call}` when it awaits a confirmation or
 * approval, or at once with `"wait": false`; 400 `invalid_args` or unknown persona, 403 `forbidden`
 * (policy, or a token naming another persona), 404, 413 `args_too_large` (DESIGN.md HTTP interface).
 */
export const POST = apiRoute(
  async (request: Request, context: { params: Promise<{ name: string }> }, identity) => {
    const { name } = await context.params;
    const raw = await readJsonBody(request, config().argsLimitBytes, config().argsMaxNodes, { keepText: ARGS_PATH });
    const body = parseCallRequest(checkRequestBody(raw, CALL_REQUEST_SCHEMA, { what: "a call request", explain: parseCallRequest }));
    const { call, finished } = await requestCall({ skillName: name, args: body.args, persona: body.persona, target: body.target, identity, wait: body.wait, signal: request.signal });
    return jsonResponse({ call }, { status: finished ? 200 : 202 });
  },
  { role: "operator" },
);

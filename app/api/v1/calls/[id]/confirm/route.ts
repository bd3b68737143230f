import { confirmCall, parseConfirmRequest } from "@/lib/server/approvals/confirm-call";
import { apiRoute, readJsonBody } from "@/lib/server/http/api-route";
import { checkRequestBody } from "@/lib/server/http/request-body";
import { jsonResponse } from "@/lib/server/http/stored-json";
import { CONFIRM_REQUEST_SCHEMA } from "@/lib/validation/call-requests";

/**
 * `POST /api/v1/calls/{id}/confirm` (operator and above, a person) optional body `{"wait": false}` →
 * 200 `{call}` at its end state, or 202 `{call}` at once with `"wait": false`; 403 for a token, 409
 * `conflict` when the call is not awaiting confirmation, 404 (DESIGN.md HTTP interface).
 */
export const POST = apiRoute(
  async (request: Request, context: { params: Promise<{ id: string }> }, identity) => {
    const { id } = await context.params;
    const wait = parseConfirmRequest(checkRequestBody(await readJsonBody(request, 16 * 1024), CONFIRM_REQUEST_SCHEMA, { what: "a confirmation", explain: parseConfirmRequest }));
    const { call, finished } = await confirmCall(id, identity, wait, request.signal);
    return jsonResponse({ call }, { status: finished ? 200 : 202 });
  },
  { role: "operator", person: "confirm calls" },
);

import { ANONYMOUS_REQUESTER, parseCallRequest } from "@/lib/server/calls/call-request";
import { createCall } from "@/lib/server/calls/create-call";
import { config } from "@/lib/server/env";
import { apiRoute, readJsonBody } from "@/lib/server/http/api-route";

/**
 * `POST /api/v1/skills/{name}/calls` body `{"args": {...}, "wait": true}` → 200 `{call}` at its end
 * state, or 202 `{call}` at once with `"wait": false`; 400 `invalid_args`, 403 `approval_required`,
 * 404, 413 `args_too_large` (DESIGN.md HTTP interface).
 */
export const POST = apiRoute(async (request: Request, context: { params: Promise<{ name: string }> }) => {
  const { name } = await context.params;
  const body = parseCallRequest(await readJsonBody(request, config().argsLimitBytes));
  const { call, finished } = await createCall({ skillName: name, args: body.args, persona: body.persona, requestedBy: ANONYMOUS_REQUESTER, wait: body.wait });
  return Response.json({ call }, { status: finished ? 200 : 202 });
});

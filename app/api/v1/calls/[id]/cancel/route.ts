import { cancelCall } from "@/lib/server/requests/cancel-call";
import { apiRoute } from "@/lib/server/http/api-route";
import { jsonResponse } from "@/lib/server/http/stored-json";

/**
 * `POST /api/v1/calls/{id}/cancel` (the requester, or an operator and above) → 200 `{call}`: `cancelled`
 * at once for a call awaiting a confirmation or approval, or once a running call's process group is
 * gone; 403 `forbidden` for anyone else; 409 `not_running` when it already ended; 404 `not_found`.
 */
export const POST = apiRoute(async (request: Request, context: { params: Promise<{ id: string }> }, identity) => {
  const { id } = await context.params;
  return jsonResponse({ call: await cancelCall(id, identity, request.signal) });
});

import { cancelCall } from "@/lib/server/calls/cancel-call";
import { apiRoute } from "@/lib/server/http/api-route";

/**
 * `POST /api/v1/calls/{id}/cancel` → 200 `{call}` once the call's process group is gone (status
 * `cancelled`); 409 `not_running` when it already ended; 404 `not_found`.
 */
export const POST = apiRoute(async (_request: Request, context: { params: Promise<{ id: string }> }) => {
  const { id } = await context.params;
  return Response.json({ call: await cancelCall(id) });
}, { role: "operator" });

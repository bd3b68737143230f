import { getCallWithEvents } from "@/lib/server/calls/read-calls";
import { apiRoute } from "@/lib/server/http/api-route";

/** `GET /api/v1/calls/{id}` → `{call: Call & {events}}`; 404 `not_found`. */
export const GET = apiRoute(async (_request: Request, context: { params: Promise<{ id: string }> }) => {
  const { id } = await context.params;
  return Response.json({ call: await getCallWithEvents(id) });
});

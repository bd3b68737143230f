import { getCallWithEvents } from "@/lib/server/calls/read-calls";
import { apiRoute } from "@/lib/server/http/api-route";
import { jsonResponse } from "@/lib/server/http/stored-json";

function optionalInteger(value: string | null): number | undefined {
  return value === null || value === "" ? undefined : Number(value);
}

/**
 * `GET /api/v1/calls/{id}` → `{call: Call & {events}}`; `?events=none` leaves `events` empty (the page
 * then reads the timeline from the event stream), `?afterSeq=N&limit=M` returns one page of events
 * (limit ≤ 5000); 400 `bad_request` for a bad number, 404 `not_found`.
 */
export const GET = apiRoute(async (request: Request, context: { params: Promise<{ id: string }> }) => {
  const { id } = await context.params;
  const params = new URL(request.url).searchParams;
  const call = await getCallWithEvents(id, {
    events: params.get("events") === "none" ? "none" : "all",
    afterSeq: optionalInteger(params.get("afterSeq")),
    limit: optionalInteger(params.get("limit")),
  });
  return jsonResponse({ call });
});

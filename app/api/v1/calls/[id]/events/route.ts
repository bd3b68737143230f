import { identityHolds } from "@/lib/server/auth/identity";
import { openCallEventStream } from "@/lib/server/calls/call-event-stream";
import { apiRoute } from "@/lib/server/http/api-route";
import { eventStreamResponse } from "@/lib/server/http/event-stream-response";

export const dynamic = "force-dynamic";

/**
 * `GET /api/v1/calls/{id}/events` → `text/event-stream`: stored timeline after `Last-Event-ID` (header or
 * `lastEventId` query), live lines while the call runs, then one `end` event with the call; 404 before
 * the first byte for an unknown call; 429 past 16 open streams of one person (their API tokens'
 * included), 503 past 256 in all; the stream ends once its reader signs out, loses the token or the
 * viewer role.
 */
export const GET = apiRoute(async (request: Request, context: { params: Promise<{ id: string }> }, identity) => {
  const { id } = await context.params;
  const url = new URL(request.url);
  const raw = request.headers.get("last-event-id") ?? url.searchParams.get("lastEventId") ?? "0";
  const afterSeq = /^\d+$/.test(raw) ? Number(raw) : 0;
  const stream = await openCallEventStream(id, afterSeq, {
    signal: request.signal,
    // A person's tokens count with them: an operator can make tokens at will (17 tokens held all 256).
    holder: { key: `person:${identity.userId}`, userId: identity.userId },
    stillAllowed: () => identityHolds(request, identity, "viewer"),
  });
  return eventStreamResponse(stream);
});

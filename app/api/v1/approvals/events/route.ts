import { openApprovalsStream } from "@/lib/server/approvals/approval-feed";
import { identityHolds } from "@/lib/server/auth/identity";
import { apiRoute } from "@/lib/server/http/api-route";
import { eventStreamResponse } from "@/lib/server/http/event-stream-response";

export const dynamic = "force-dynamic";

/**
 * `GET /api/v1/approvals/events` (viewer and above) → `text/event-stream`: `event: ready` at once, then
 * `event: change` (data `{}`) whenever an approval or a call awaiting confirmation changes on any
 * replica, and a `: ping` comment every 15 s; the client reads `GET /api/v1/approvals` (or the calls
 * awaiting confirmation) again on each change. 429 past 16 open streams of one person, 503 past 512 on
 * this replica; the stream ends once its reader signs out, loses the token or the viewer role
 * (lib/server/approvals/approval-feed.ts; issue 11 point 2).
 */
export const GET = apiRoute(async (request: Request, _context: unknown, identity) => {
  const stream = openApprovalsStream({
    signal: request.signal,
    // A person's tokens count with them: an operator can make tokens at will.
    holder: { key: `person:${identity.userId}`, userId: identity.userId },
    stillAllowed: () => identityHolds(request, identity, "viewer"),
  });
  return eventStreamResponse(stream);
});

import { openTimelineText } from "@/lib/server/calls/read-calls";
import { apiRoute } from "@/lib/server/http/api-route";

export const dynamic = "force-dynamic";

/**
 * `GET /api/v1/calls/{id}/timeline.txt` → the stored timeline as a `text/plain` download, one
 * `seq<TAB>ISO time<TAB>stream<TAB>line` per event, streamed in pages of 5,000; 404 `not_found`.
 */
export const GET = apiRoute(async (_request: Request, context: { params: Promise<{ id: string }> }) => {
  const { id } = await context.params;
  const stream = await openTimelineText(id);
  return new Response(stream, {
    headers: {
      "content-type": "text/plain; charset=utf-8",
      "content-disposition": `attachment; filename="call-${id.replace(/[^\w.-]/g, "_")}-stderr.txt"`,
      "cache-control": "no-store",
    },
  });
});

/**
 * The response of a server-sent event stream (`GET /api/v1/calls/{id}/events`,
 * `GET /api/v1/approvals/events`): `stream`'s bytes as `text/event-stream; charset=utf-8`, never cached
 * or transformed, kept alive, and not buffered by a reverse proxy (`X-Accel-Buffering: no`: nginx would
 * otherwise hold the lines back; DESIGN.md's 100 ms stderr → browser budget).
 */
export function eventStreamResponse(stream: ReadableStream<Uint8Array>): Response {
  return new Response(stream, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    },
  });
}

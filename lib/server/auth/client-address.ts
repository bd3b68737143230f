/**
 * Header carrying the TCP peer address of a request. The console's server (scripts/console-server.mjs)
 * sets it from the socket and drops any copy a client sent, so it cannot be forged the way
 * X-Forwarded-For can (Next.js keeps a client's X-Forwarded-For as it is).
 */
export const PEER_ADDRESS_HEADER = "x-skill-console-peer";

/** The client address of a request, for the sign-in rate limit and the audit trail; "unknown" when absent. */
export function clientAddress(request: Request): string {
  return request.headers.get(PEER_ADDRESS_HEADER)?.trim() || "unknown";
}

/**
 * The client address the console trusts (issue 4 point 1: the sign-in rate limit counts per account
 * and address). Next.js keeps a client-sent X-Forwarded-For as it is, so that header cannot be
 * trusted; scripts/console-server.mjs instead stamps every request with the TCP peer address in
 * `x-skill-console-peer`, after dropping any copy the client sent. lib/server/auth/client-address.ts
 * reads it under the same name.
 */

/** Header carrying the TCP peer address (same name as PEER_ADDRESS_HEADER in lib/server/auth/client-address.ts). */
export const PEER_ADDRESS_HEADER = "x-skill-console-peer";

/** `::ffff:127.0.0.1` (an IPv4 client on a dual-stack socket) → `127.0.0.1`; other addresses as they are. */
export function normalisePeerAddress(address) {
  if (typeof address !== "string" || address === "") return null;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1] : address;
}

/**
 * Replaces whatever `x-skill-console-peer` a client sent with the request's socket address.
 * Takes a node:http IncomingMessage (or any `{headers, rawHeaders?, socket?: {remoteAddress}}`) and
 * changes it in place: every copy of the header, in `headers` (lower-cased keys) and in `rawHeaders`
 * (any casing), is removed, then the peer address is set in both. Without a peer address (a socket
 * already closed) the header is only removed, and the console sees the address as "unknown".
 */
export function stampPeerAddress(request) {
  for (const key of Object.keys(request.headers)) {
    if (key.toLowerCase() === PEER_ADDRESS_HEADER) delete request.headers[key];
  }
  const raw = Array.isArray(request.rawHeaders) ? request.rawHeaders : null;
  if (raw) {
    const kept = [];
    for (let i = 0; i + 1 < raw.length; i += 2) {
      if (String(raw[i]).toLowerCase() !== PEER_ADDRESS_HEADER) kept.push(raw[i], raw[i + 1]);
    }
    raw.length = 0;
    raw.push(...kept);
  }
  const address = normalisePeerAddress(request.socket?.remoteAddress);
  if (address === null) return;
  request.headers[PEER_ADDRESS_HEADER] = address;
  raw?.push(PEER_ADDRESS_HEADER, address);
}

/**
 * The URL the console server asks itself at start-up, on the loopback address of the family it
 * listens on (a wildcard `0.0.0.0` / `::` cannot be connected to on every system). `listening` is
 * `server.address()` of a listening node:http server: `{address, family, port}`.
 */
export function selfUrl(listening, path) {
  const { address, family, port } = listening;
  const ipv6 = family === "IPv6" || family === 6;
  let host = address;
  if (address === "0.0.0.0") host = "127.0.0.1";
  else if (address === "::") host = "::1";
  return `http://${ipv6 && host !== "127.0.0.1" ? `[${host}]` : host}:${port}${path}`;
}

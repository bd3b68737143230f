/**
 * The client address the console trusts (issue 4 point 1: the sign-in rate limit counts per account
 * and address) and the forwarded headers it believes (issue 10 point 4). Next.js keeps a client-sent
 * X-Forwarded-For as it is, so that header cannot be trusted; scripts/console-server.mjs instead
 * stamps every request with the client address in `x-skill-console-peer`, after dropping any copy the
 * client sent, and drops every forwarded header (X-Forwarded-Host, -Proto, -For, Forwarded, …)
 * unless the TCP peer is a proxy CONSOLE_TRUSTED_PROXIES names. lib/server/auth/client-address.ts
 * reads the address under the same name; the Origin check (lib/server/http/same-origin.ts) reads
 * X-Forwarded-Host and -Proto, which only a trusted proxy can have set.
 */
import net from "node:net";

/** Header carrying the TCP peer address (same name as PEER_ADDRESS_HEADER in lib/server/auth/client-address.ts). */
export const PEER_ADDRESS_HEADER = "x-skill-console-peer";

/** `::ffff:127.0.0.1` (an IPv4 client on a dual-stack socket) → `127.0.0.1`; other addresses as they are. */
export function normalisePeerAddress(address) {
  if (typeof address !== "string" || address === "") return null;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1] : address;
}

/** Headers a reverse proxy sets about the client and the URL it was asked for: believed only from a trusted proxy. */
export const FORWARDED_HEADERS = ["forwarded", "x-forwarded-for", "x-forwarded-host", "x-forwarded-proto", "x-forwarded-port", "x-forwarded-prefix", "x-forwarded-server", "x-real-ip"];

/** The setting naming the reverse proxies whose forwarded headers the console believes. */
export const TRUSTED_PROXIES_SETTING = "CONSOLE_TRUSTED_PROXIES";

/**
 * The proxies CONSOLE_TRUSTED_PROXIES names: comma- or space-separated IPv4/IPv6 addresses and CIDR
 * ranges (`10.0.0.0/8`, `::1`, `192.0.2.7`). Unset or empty: none (every forwarded header is dropped).
 * Returns `{ list: net.BlockList | null, entries }`. Throws Error naming the first entry that is neither
 * an address nor a range: a typo must not silently trust no one or everyone.
 */
export function parseTrustedProxies(text) {
  const entries = String(text ?? "").split(/[\s,]+/).filter((entry) => entry !== "");
  if (entries.length === 0) return { list: null, entries };
  const list = new net.BlockList();
  for (const entry of entries) {
    const [address, prefix, extra] = entry.split("/");
    const family = net.isIP(address ?? "");
    const type = family === 6 ? "ipv6" : "ipv4";
    const bits = prefix === undefined ? null : /^\d{1,3}$/.test(prefix) ? Number(prefix) : NaN;
    if (family === 0 || extra !== undefined || Number.isNaN(bits) || (bits !== null && bits > (family === 6 ? 128 : 32))) {
      throw new Error(`${TRUSTED_PROXIES_SETTING}: ${JSON.stringify(entry)} is not an IP address or a CIDR range (e.g. 10.0.0.0/8, ::1)`);
    }
    if (bits === null) list.addAddress(address, type);
    else list.addSubnet(address, bits, type);
  }
  return { list, entries };
}

/** Whether `address` (normalised) is one of the trusted proxies. */
function isTrusted(trusted, address) {
  if (!trusted?.list || address === null) return false;
  const family = net.isIP(address);
  return family !== 0 && trusted.list.check(address, family === 6 ? "ipv6" : "ipv4");
}

/**
 * The client of a request a trusted proxy forwarded: X-Forwarded-For read from the right, past every
 * trusted proxy (each appends the address it was reached from), stopping at the first entry that is not
 * an address. Falls back to the nearest trusted hop. Never throws.
 */
function forwardedClient(trusted, peer, forwardedFor) {
  let client = peer;
  const hops = String(forwardedFor ?? "").split(",").map((hop) => normalisePeerAddress(hop.trim().replace(/^\[(.*)\]$/, "$1")));
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i];
    if (hop === null || net.isIP(hop) === 0) break;
    client = hop;
    if (!isTrusted(trusted, hop)) break;
  }
  return client;
}

function removeHeaders(request, names) {
  for (const key of Object.keys(request.headers)) {
    if (names.includes(key.toLowerCase())) delete request.headers[key];
  }
  const raw = Array.isArray(request.rawHeaders) ? request.rawHeaders : null;
  if (raw) {
    const kept = [];
    for (let i = 0; i + 1 < raw.length; i += 2) {
      if (!names.includes(String(raw[i]).toLowerCase())) kept.push(raw[i], raw[i + 1]);
    }
    raw.length = 0;
    raw.push(...kept);
  }
}

/**
 * Replaces whatever `x-skill-console-peer` a client sent with the request's client address, and drops
 * the forwarded headers (FORWARDED_HEADERS) unless the TCP peer is a trusted proxy (`trusted`, from
 * parseTrustedProxies; null trusts no one). Takes a node:http IncomingMessage (or any
 * `{headers, rawHeaders?, socket?: {remoteAddress}}`) and changes it in place, in `headers`
 * (lower-cased keys) and in `rawHeaders` (any casing). The client address is the socket's, or, behind a
 * trusted proxy, the one X-Forwarded-For names (forwardedClient). Without a peer address (a socket
 * already closed) the header is only removed, and the console sees the address as "unknown".
 */
export function stampPeerAddress(request, trusted = null) {
  const peer = normalisePeerAddress(request.socket?.remoteAddress);
  const fromProxy = isTrusted(trusted, peer);
  const forwardedFor = request.headers["x-forwarded-for"];
  removeHeaders(request, fromProxy ? [PEER_ADDRESS_HEADER] : [PEER_ADDRESS_HEADER, ...FORWARDED_HEADERS]);
  if (peer === null) return;
  const address = fromProxy ? forwardedClient(trusted, peer, Array.isArray(forwardedFor) ? forwardedFor.join(",") : forwardedFor) : peer;
  request.headers[PEER_ADDRESS_HEADER] = address;
  request.rawHeaders?.push?.(PEER_ADDRESS_HEADER, address);
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

/** Most connections open at once from one client address (a trusted proxy's are not counted). */
export const CONNECTIONS_PER_ADDRESS_MAX = 256;
/** Most connections the console server keeps open at once. */
export const CONNECTIONS_MAX = 4096;

/**
 * Bounds the connections of a node:http `server` (issue 10 point 1): at most `perAddress` open at once
 * from one client address — past it a new one is closed at once, unread — and `total` in all
 * (server.maxConnections). 16,384 slow sign-ins from six addresses each cost the console a parser,
 * a request and a body read, and held the event loop 0.6–1.6 s at a time. The TCP peers
 * CONSOLE_TRUSTED_PROXIES names (`trusted`, from parseTrustedProxies) are not counted: every client
 * of a reverse proxy comes from its address. Returns a function giving the open count of an address.
 */
export function limitConnections(server, trusted = null, { perAddress = CONNECTIONS_PER_ADDRESS_MAX, total = CONNECTIONS_MAX } = {}) {
  server.maxConnections = total;
  const open = new Map();
  server.on("connection", (socket) => {
    const address = normalisePeerAddress(socket.remoteAddress);
    if (address === null || isTrusted(trusted, address)) return;
    const count = (open.get(address) ?? 0) + 1;
    if (count > perAddress) {
      socket.destroy();
      return;
    }
    open.set(address, count);
    socket.once("close", () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left <= 0) open.delete(address);
      else open.set(address, left);
    });
  });
  return (address) => open.get(address) ?? 0;
}

/** How long the console keeps an idle keep-alive connection open, in ms (node's default is 5 s). */
export const KEEP_ALIVE_MS = 65_000;

/**
 * Keeps idle keep-alive connections open for KEEP_ALIVE_MS (and allows headers KEEP_ALIVE_MS + 1 s,
 * as node wants headersTimeout above keepAliveTimeout). With node's 5 s a client that reuses a
 * connection after about 5 s idle — an agent between two calls, a reverse proxy's upstream pool, a
 * test's request context — races the server's close and gets ECONNRESET for a request the console
 * never saw (e2e: a GET after 5 s of signing in other browsers). A client idle longer than the
 * console's keep-alive must open a new connection; 65 s is above the usual proxies' 60 s.
 */
export function keepConnectionsAlive(server) {
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  server.headersTimeout = KEEP_ALIVE_MS + 1000;
}

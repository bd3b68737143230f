import { AppError } from "../errors";

/** Methods that change state; only these are checked (a cross-origin page cannot read a GET's answer). */
const STATE_CHANGING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

function firstListItem(value: string | null): string | null {
  const first = value?.split(",")[0]?.trim();
  return first ? first : null;
}

/** `host[:port]` as URL normalises it for `protocol` (the default port dropped), or null if unparsable. */
function normalisedHost(protocol: string, host: string): string | null {
  try {
    return new URL(`${protocol}//${host}`).host;
  } catch {
    return null;
  }
}

/**
 * Refuses a state-changing request sent by a page of another origin (DESIGN.md "HTTP interface": a
 * cross-origin state-changing request answers 403 `bad_origin`). Without it any web site the operator
 * visits could make the browser POST to the console on 127.0.0.1 — a form or a text/plain fetch needs
 * no CORS preflight — and start calls, reload the loader or cancel calls.
 *
 * For POST, PUT, PATCH and DELETE: `Sec-Fetch-Site: cross-site` is refused; an `Origin` header must be
 * a real origin (`null`, sent by sandboxed frames and opaque redirects, is refused) whose host and port
 * equal the request's `X-Forwarded-Host` (first entry, set by a reverse proxy; a page cannot add it to
 * a cross-origin request without a preflight that the console never grants), `Host`, or the URL's host.
 * A request without `Origin` (curl, agents, server-side clients) passes: browsers always send Origin on
 * these methods. The stricter rule for cookie sessions (Origin required) arrives with identities.
 * Returns nothing; throws AppError `bad_origin`.
 */
export function assertSameOrigin(request: Request): void {
  if (!STATE_CHANGING.has(request.method.toUpperCase())) return;
  const refuse = (why: string) => new AppError("bad_origin", `cross-origin request refused: ${why}`);
  if (request.headers.get("sec-fetch-site")?.toLowerCase() === "cross-site") throw refuse("Sec-Fetch-Site is cross-site");
  const origin = request.headers.get("origin");
  if (origin === null) return;
  let originUrl: URL;
  try {
    originUrl = new URL(origin);
  } catch {
    throw refuse(`Origin ${JSON.stringify(origin)} is not an origin`);
  }
  if (origin === "null" || (originUrl.protocol !== "http:" && originUrl.protocol !== "https:")) {
    throw refuse(`Origin ${JSON.stringify(origin)} is opaque`);
  }
  const candidates = [firstListItem(request.headers.get("x-forwarded-host")), request.headers.get("host"), new URL(request.url).host];
  const accepted = candidates
    .filter((host): host is string => host !== null && host !== "")
    .map((host) => normalisedHost(originUrl.protocol, host));
  if (!accepted.includes(originUrl.host)) throw refuse(`Origin ${originUrl.origin} is not this console`);
}

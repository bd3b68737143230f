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
 * Refuses a state-changing request sent by a page of another origin (DESIGN.md "HTTP interface": 403
 * `bad_origin`). Without it any web site the operator visits could make the browser POST to the console
 * with the operator's session cookie — a form or a text/plain fetch needs no CORS preflight — and start,
 * confirm or sign calls. Route handlers get no such check from Next.js.
 *
 * Only POST, PUT, PATCH and DELETE are checked (a cross-origin page cannot read a GET's answer).
 * `Sec-Fetch-Site: cross-site` is refused. The `Origin` must be a real http(s) origin (`null`, sent by
 * sandboxed frames and opaque redirects, is refused) whose scheme, host and port are the request's own:
 * scheme from `X-Forwarded-Proto` or the URL, host from `X-Forwarded-Host` (first entry, set by a reverse
 * proxy; a page cannot add it to a cross-origin request without a preflight the console never grants),
 * `Host`, or the URL — whatever name the console is reached by. `requireOrigin` (requests authenticated
 * by a cookie, issue 4 point 1) refuses a request without Origin too; without it (sign-in, bearer
 * tokens) a missing Origin passes, as curl and agents send none. Returns nothing; throws `bad_origin`.
 */
export function assertSameOrigin(request: Request, options: { requireOrigin: boolean }): void {
  if (!STATE_CHANGING.has(request.method.toUpperCase())) return;
  const refuse = (why: string) => new AppError("bad_origin", `cross-origin request refused: ${why}`);
  if (request.headers.get("sec-fetch-site")?.toLowerCase() === "cross-site") throw refuse("Sec-Fetch-Site is cross-site");
  const origin = request.headers.get("origin");
  if (origin === null) {
    if (options.requireOrigin) throw refuse("a request authenticated by the session cookie must carry an Origin header");
    return;
  }
  let originUrl: URL;
  try {
    originUrl = new URL(origin);
  } catch {
    throw refuse(`Origin ${JSON.stringify(origin)} is not an origin`);
  }
  if (origin === "null" || (originUrl.protocol !== "http:" && originUrl.protocol !== "https:")) {
    throw refuse(`Origin ${JSON.stringify(origin)} is opaque`);
  }
  const url = new URL(request.url);
  const forwardedProto = firstListItem(request.headers.get("x-forwarded-proto"));
  const schemes = [url.protocol, forwardedProto ? `${forwardedProto.toLowerCase()}:` : null];
  if (!schemes.includes(originUrl.protocol)) throw refuse(`Origin ${originUrl.origin} is not this console (scheme)`);
  const candidates = [firstListItem(request.headers.get("x-forwarded-host")), request.headers.get("host"), url.host];
  const accepted = candidates
    .filter((host): host is string => host !== null && host !== "")
    .map((host) => normalisedHost(originUrl.protocol, host));
  if (!accepted.includes(originUrl.host)) throw refuse(`Origin ${originUrl.origin} is not this console`);
}

/**
 * Minimal HTTP client for the benchmarks on node:http with a keep-alive agent (cheaper per request than
 * fetch, so the client adds as little as possible to what is measured): JSON requests with their
 * round-trip time, and a server-sent-event reader that timestamps every event when its bytes arrive.
 */
import http from "node:http";
import { wallClockMs } from "./stats.mjs";

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

/** The `Authorization` header sent to each console, by base URL (set by authorize()). */
const credentials = new Map();

/**
 * Makes every later request() and readEventStream() to `baseUrl` send `Authorization: Bearer <token>`
 * (the console answers 401 to API requests without a session or token; issue 4).
 */
export function authorize(baseUrl, token) {
  credentials.set(baseUrl, `Bearer ${token}`);
}

/**
 * The headers of a request to `baseUrl`: `headers` plus its Authorization, when authorize() set one
 * and `headers` does not say otherwise (`authorization: null` sends none: a request by session cookie).
 */
function withCredentials(baseUrl, headers) {
  if ("authorization" in headers) {
    const { authorization, ...rest } = headers;
    return authorization === null ? rest : headers;
  }
  const authorization = credentials.get(baseUrl);
  return authorization ? { ...headers, authorization } : headers;
}

/**
 * Sends one request to `baseUrl + path` with an optional JSON `body` (and the console's bearer token, see
 * authorize(); `headers` are added; with `rawBody`, `body` is a string sent as it is). Resolves with
 * `{ status, json, text, cookies, ms, sentAt, doneAt }` (`ms` from the request's start to the last byte read;
 * `sentAt`/`doneAt` are the same two instants as wall-clock ms; `json` is null when the body is not JSON; `cookies` are the Set-Cookie lines). Rejects on a network error or after `timeoutMs` (default 120 s).
 */
export function request(baseUrl, method, path, body, { timeoutMs = 120_000, headers = {}, rawBody = false } = {}) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? null : Buffer.from(rawBody ? body : JSON.stringify(body));
    const started = performance.now();
    const sentAt = wallClockMs();
    const req = http.request(
      `${baseUrl}${path}`,
      {
        method,
        agent,
        headers: withCredentials(baseUrl, { ...(payload ? { "content-type": "application/json", "content-length": payload.length } : { "content-length": 0 }), ...headers }),
        timeout: timeoutMs,
      },
      (res) => {
        const chunks = [];
        res.on("data", (chunk) => chunks.push(chunk));
        res.on("error", reject);
        res.on("end", () => {
          const ms = performance.now() - started;
          const text = Buffer.concat(chunks).toString("utf8");
          let json = null;
          try {
            json = JSON.parse(text);
          } catch {
            // not JSON
          }
          resolve({ status: res.statusCode, json, text, cookies: res.headers["set-cookie"] ?? [], ms, sentAt, doneAt: sentAt + ms });
        });
      },
    );
    req.on("timeout", () => req.destroy(new Error(`${method} ${path} timed out after ${timeoutMs} ms`)));
    req.on("error", reject);
    req.end(payload ?? undefined);
  });
}

/**
 * Reads a `text/event-stream` at `baseUrl + path` until the server closes it. Every event is returned
 * as `{ event, id, data, arrivedAt }` where `arrivedAt` is the wall-clock time (ms, sub-ms precision)
 * at which the chunk completing it was read. Also returns `openedAt`, the time the response headers
 * arrived. Rejects on a non-200 answer or a network error.
 */
export function readEventStream(baseUrl, path, { timeoutMs = 120_000 } = {}) {
  return new Promise((resolve, reject) => {
    const events = [];
    let openedAt = null;
    const req = http.request(`${baseUrl}${path}`, { method: "GET", agent, headers: withCredentials(baseUrl, { accept: "text/event-stream" }), timeout: timeoutMs }, (res) => {
      openedAt = wallClockMs();
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`GET ${path} answered ${res.statusCode}`));
        return;
      }
      res.setEncoding("utf8");
      let pending = "";
      res.on("data", (chunk) => {
        const arrivedAt = wallClockMs();
        pending += chunk;
        let boundary = pending.indexOf("\n\n");
        while (boundary !== -1) {
          const block = pending.slice(0, boundary);
          pending = pending.slice(boundary + 2);
          const parsed = { event: "message", id: null, data: "", arrivedAt };
          for (const line of block.split("\n")) {
            if (line.startsWith(":")) continue;
            const colon = line.indexOf(":");
            const field = colon === -1 ? line : line.slice(0, colon);
            const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
            if (field === "event") parsed.event = value;
            else if (field === "id") parsed.id = value;
            else if (field === "data") parsed.data += (parsed.data ? "\n" : "") + value;
          }
          if (block.trim() !== "" && !block.split("\n").every((line) => line.startsWith(":"))) events.push(parsed);
          boundary = pending.indexOf("\n\n");
        }
      });
      res.on("error", reject);
      res.on("end", () => resolve({ events, openedAt }));
    });
    req.on("timeout", () => req.destroy(new Error(`GET ${path} timed out after ${timeoutMs} ms`)));
    req.on("error", reject);
    req.end();
  });
}

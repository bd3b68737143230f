import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { Readable } from "node:stream";
import { durable } from "../db-durability";
import { knownBodyOf } from "./known-body";

/** A route module of app/api: its HTTP method handlers, as Next.js's app router calls them. */
export type RouteModule = Partial<Record<string, unknown>>;

/** One route: its folder segments under app/ (e.g. `["api", "v1", "calls", "[id]", "events"]`) and its module. */
export interface ApiRoute {
  segments: readonly string[];
  load: () => Promise<RouteModule> | RouteModule;
}

type Handler = (request: Request, context: { params: Promise<Record<string, string | string[]>> }) => Promise<Response>;

/** How specific a segment is: static before dynamic before catch-all, as Next.js resolves routes. */
function rank(segment: string): number {
  return segment.startsWith("[...") ? 2 : segment.startsWith("[") ? 1 : 0;
}

/** Orders routes the way Next.js's app router tries them: segment by segment, static first, longer first. */
export function sortRoutes<T extends ApiRoute>(routes: readonly T[]): T[] {
  return [...routes].sort((a, b) => {
    for (let i = 0; i < Math.max(a.segments.length, b.segments.length); i++) {
      const difference = (a.segments[i] === undefined ? -1 : rank(a.segments[i]!)) - (b.segments[i] === undefined ? -1 : rank(b.segments[i]!));
      if (difference !== 0) return difference;
    }
    return b.segments.length - a.segments.length;
  });
}

/**
 * The route serving `pathname` and its params (`[id]` → a string, `[...path]` → the rest as an array),
 * with Next.js's app-router rules, from routes sorted by sortRoutes. Returns null when none does. Pure.
 */
export function matchRoute<T extends ApiRoute>(sorted: readonly T[], pathname: string): { route: T; params: Record<string, string | string[]> } | null {
  let parts: string[];
  try {
    parts = pathname.split("/").filter((part) => part !== "").map((part) => decodeURIComponent(part));
  } catch {
    return null;
  }
  routes: for (const route of sorted) {
    const params: Record<string, string | string[]> = {};
    for (let i = 0; i < route.segments.length; i++) {
      const segment = route.segments[i]!;
      if (segment.startsWith("[...")) {
        const rest = parts.slice(i);
        if (rest.length === 0) continue routes;
        params[segment.slice(4, -1)] = rest;
        return { route, params };
      }
      const part = parts[i];
      if (part === undefined) continue routes;
      if (segment.startsWith("[")) params[segment.slice(1, -1)] = part;
      else if (segment !== part) continue routes;
    }
    if (parts.length === route.segments.length) return { route, params };
  }
  return null;
}

/** The methods a route module serves (HEAD comes with GET). */
function allowed(module: RouteModule): string[] {
  const methods = ["GET", "POST", "PUT", "PATCH", "DELETE"].filter((method) => typeof module[method] === "function");
  if (methods.includes("GET")) methods.push("HEAD");
  return methods;
}

/**
 * Serves the console's API route handlers (app/api/**\/route.ts) straight from node:http, without
 * Next.js's request pipeline, which costs ~5 ms of CPU per API request here (routing, its request
 * wrappers, async context) against ~1 ms this way — a call makes several (DESIGN.md / issue 9 point 6:
 * the call path close to a bare spawn). The handlers are the same modules Next.js would run; they use
 * no Next.js API (only pages do). Matching follows the app router (sortRoutes, matchRoute); a method a
 * route does not serve answers 405 with `Allow`, like Next.js; HEAD runs GET without a body. The body
 * streams in, the answer streams out (event streams included), and a client that goes away aborts the
 * request's signal. Returns the handler of one request: true when it was an API route, false to leave
 * the request to Next.js (pages, assets).
 */
export function createApiRouter(routes: readonly ApiRoute[]): (request: IncomingMessage, response: ServerResponse) => Promise<boolean> {
  const sorted = sortRoutes(routes);
  const modules = new Map<ApiRoute, Promise<RouteModule>>();
  return async (request, response) => {
    const url = new URL(request.url ?? "/", "http://console.invalid");
    if (url.pathname !== "/api" && !url.pathname.startsWith("/api/")) return false;
    const found = matchRoute(sorted, url.pathname);
    if (!found) return false;
    let loading = modules.get(found.route);
    if (!loading) {
      loading = Promise.resolve(found.route.load());
      modules.set(found.route, loading);
    }
    const module = await loading;
    const method = request.method ?? "GET";
    const handler = module[method === "HEAD" ? "GET" : method] as Handler | undefined;
    if (typeof handler !== "function") {
      response.writeHead(method === "OPTIONS" ? 204 : 405, { allow: allowed(module).join(", ") }).end();
      return true;
    }
    const abort = new AbortController();
    // "close" also follows a finished answer: only a client that left before the end aborts (and an
    // abort is not free: it builds a DOMException with its stack).
    response.on("close", () => {
      if (!response.writableFinished) abort.abort();
    });
    // A pipelined request's answer waits behind the one before it and has no socket yet: it never
    // closes when the client leaves, so the socket's own close aborts it (a client that sent sixteen
    // stream requests in one write and hung up held sixteen stream slots for good). An answer that has
    // its socket is aborted by its own "close" above, as before: watching the socket for it too changed
    // how replicas answered during a PostgreSQL outage (no 503 at all in tests/replicas/replica-faults;
    // the mechanism was not found).
    if (!response.socket) {
      const forget = abortWhenSocketCloses(request.socket, abort);
      response.once("finish", forget);
      response.once("close", forget);
    }
    const host = request.headers.host ?? "127.0.0.1";
    const headers = new Headers();
    for (const [name, value] of Object.entries(request.headers)) {
      if (typeof value === "string") headers.set(name, value);
      else if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    }
    const hasBody = method !== "GET" && method !== "HEAD";
    let requestUrl: URL;
    try {
      requestUrl = new URL(`${url.pathname}${url.search}`, `http://${host}`);
    } catch {
      response.writeHead(400, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { code: "bad_request", message: `the Host header ${JSON.stringify(host)} is not a host` } }));
      return true;
    }
    const webRequest = new Request(requestUrl, {
      method,
      headers,
      body: hasBody ? (Readable.toWeb(request) as ReadableStream<Uint8Array>) : undefined,
      signal: abort.signal,
      ...(hasBody ? { duplex: "half" } : {}),
    } as RequestInit);
    let answer: Response;
    try {
      answer = await handler(webRequest, { params: Promise.resolve(found.params) });
    } catch (error) {
      console.error(`api: ${method} ${url.pathname} failed:`, error);
      if (!response.headersSent) response.writeHead(500, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { code: "internal", message: "Internal error; see the console's log." } }));
      return true;
    }
    await writeResponse(answer, response, method === "HEAD", hasBody);
    return true;
  };
}

const socketRequests = new WeakMap<Socket, Set<AbortController>>();

/**
 * Aborts `abort` when `socket` closes (at once when it already has); returns the function that stops
 * watching (called when the answer finished). One "close" listener per socket serves all of its
 * requests, pipelined or kept alive one after another, so none pile up on a long-lived connection.
 */
function abortWhenSocketCloses(socket: Socket, abort: AbortController): () => void {
  if (socket.destroyed) {
    abort.abort();
    return () => undefined;
  }
  let watched = socketRequests.get(socket);
  if (!watched) {
    const requests = new Set<AbortController>();
    socketRequests.set(socket, (watched = requests));
    socket.once("close", () => {
      for (const each of requests) each.abort();
      requests.clear();
    });
  }
  watched.add(abort);
  const requests = watched;
  return () => void requests.delete(abort);
}

/**
 * Resolves when `response` drains or closes, leaving no listener behind (one per wait would pile up
 * over a long stream written under backpressure: an SSE timeline, an answer streamed in parts).
 */
function drained(response: ServerResponse): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      response.off("drain", done);
      response.off("close", done);
      resolve();
    };
    response.on("drain", done);
    response.on("close", done);
  });
}

/** Longest stretch (ms) writeResponse writes an answer's body without letting the event loop turn. */
const WRITE_TURN_MS = 4;

/**
 * Streams a web Response into a node:http response (headers, status, body), the event loop turning at
 * least every WRITE_TURN_MS, and stops when the client leaves; a body that fails after the headers cuts
 * the connection (the answer must not look complete). The answer to a request that may have
 * written (`mayHaveWritten`: any method but GET and HEAD) waits until its commits are on disk
 * (durable()); a failed flush answers 500 instead. An answer made by stringResponse (every small
 * jsonResponse) goes out in one write with its Content-Length, its body stream never read.
 */
async function writeResponse(answer: Response, response: ServerResponse, headOnly: boolean, mayHaveWritten: boolean): Promise<void> {
  if (mayHaveWritten) {
    try {
      // What this request committed is on disk before the client is told (db-durability.ts).
      await durable();
    } catch (error) {
      console.error("api: flushing the database to disk failed; answering 500:", error);
      await answer.body?.cancel().catch(() => undefined);
      response.writeHead(500, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { code: "internal", message: "The database could not be flushed to disk; what this request changed may be lost. See the console's log." } }));
      return;
    }
  }
  const headers: Record<string, string | string[]> = {};
  answer.headers.forEach((value, name) => {
    if (name === "set-cookie") return;
    headers[name] = value;
  });
  const cookies = answer.headers.getSetCookie();
  if (cookies.length > 0) headers["set-cookie"] = cookies;
  const known = knownBodyOf(answer);
  if (known !== undefined) {
    headers["content-length"] = String(Buffer.byteLength(known));
    response.writeHead(answer.status, headers);
    if (headOnly) response.end();
    else response.end(known);
    return;
  }
  response.writeHead(answer.status, headers);
  if (!answer.body || headOnly) {
    await answer.body?.cancel().catch(() => undefined);
    response.end();
    return;
  }
  const reader = answer.body.getReader();
  const stop = () => void reader.cancel().catch(() => undefined);
  response.once("close", stop);
  try {
    let since = performance.now();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!response.write(value)) await drained(response);
      if (response.destroyed) break;
      // A local client drains the socket as fast as it is written: "drain" then comes on the next tick
      // and the whole answer (megabytes of args read part by part) would go out in one turn of the event
      // loop. Every WRITE_TURN_MS the loop gets its turn (issue 10 point 1).
      if (performance.now() - since >= WRITE_TURN_MS) {
        await yieldToEventLoop();
        since = performance.now();
      }
    }
  } catch {
    // The client went away, or the stream failed after its headers (an event stream cut off for a
    // backlog its client did not read): the connection is cut, never ended cleanly, so the client
    // sees an incomplete answer rather than a complete one.
    response.off("close", stop);
    response.destroy();
    return;
  } finally {
    response.off("close", stop);
  }
  response.end();
}

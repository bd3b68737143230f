import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiRouter, matchRoute, sortRoutes, type ApiRoute } from "@/lib/server/http/api-router";
import { jsonResponse } from "@/lib/server/http/stored-json";

// The production API router (lib/server/http/api-router.ts) against a real node:http server, with
// small route modules standing in for app/api's: matching as Next.js's app router does, methods,
// bodies in and out, cookies, and a client that leaves in the middle of a stream.

const aborted: string[] = [];
/** What the busy-stream route saw: chunks made, and how many when a timer set at the first one fired. */
const busyStream: { pulls: number; pullsWhenTimerFired: number | null } = { pulls: 0, pullsWhenTimerFired: null };

const routes: ApiRoute[] = [
  { segments: ["api", "v1", "calls"], load: () => ({ GET: async () => Response.json({ route: "calls" }) }) },
  {
    segments: ["api", "v1", "calls", "[id]"],
    load: async () => ({
      GET: async (_request: Request, context: { params: Promise<Record<string, string>> }) => Response.json({ route: "call", params: await context.params }),
      DELETE: async () => new Response(null, { status: 204 }),
    }),
  },
  { segments: ["api", "v1", "known"], load: () => ({ GET: async () => jsonResponse({ name: "é".repeat(3), n: 1 }, { status: 201, headers: { "x-kind": "known" } }) }) },
  { segments: ["api", "v1", "calls", "recent"], load: () => ({ GET: async () => Response.json({ route: "recent" }) }) },
  {
    segments: ["api", "v1", "echo"],
    load: () => ({
      POST: async (request: Request) =>
        Response.json({ body: await request.text(), host: new URL(request.url).host, contentType: request.headers.get("content-type") }),
    }),
  },
  {
    segments: ["api", "v1", "cookies"],
    load: () => ({
      POST: async () => {
        const headers = new Headers({ "content-type": "application/json" });
        headers.append("set-cookie", "a=1; Path=/; HttpOnly");
        headers.append("set-cookie", "b=2; Path=/; HttpOnly");
        return new Response("{}", { headers });
      },
    }),
  },
  {
    segments: ["api", "v1", "stream"],
    load: () => ({
      GET: async (request: Request) => {
        request.signal.addEventListener("abort", () => aborted.push("stream"));
        let tick = 0;
        const body = new ReadableStream<Uint8Array>({
          async pull(controller) {
            await new Promise((resolve) => setTimeout(resolve, 5));
            controller.enqueue(new TextEncoder().encode(`line ${++tick}\n`));
          },
        });
        return new Response(body, { headers: { "content-type": "text/event-stream" } });
      },
    }),
  },
  {
    segments: ["api", "v1", "big-stream"],
    // 40 chunks of 1 MiB: each write fills the socket's buffer, so the router waits for drain 40 times.
    load: () => ({
      GET: async () => {
        let sent = 0;
        const chunk = new Uint8Array(1024 * 1024).fill(0x61);
        const body = new ReadableStream<Uint8Array>({
          pull(controller) {
            if (sent++ === 40) return controller.close();
            controller.enqueue(chunk);
          },
        });
        return new Response(body, { headers: { "content-type": "text/plain" } });
      },
    }),
  },
  {
    segments: ["api", "v1", "busy-stream"],
    // 30 small chunks, each 2 ms of synchronous work to make (as a part read from the database is): the
    // socket never fills, so only the router itself can let the event loop turn between them.
    load: () => ({
      GET: async () => {
        busyStream.pulls = 0;
        busyStream.pullsWhenTimerFired = null;
        const body = new ReadableStream<Uint8Array>({
          pull(controller) {
            if (busyStream.pulls === 0) setTimeout(() => (busyStream.pullsWhenTimerFired = busyStream.pulls), 0);
            if (busyStream.pulls === 30) return controller.close();
            busyStream.pulls += 1;
            const until = performance.now() + 2;
            while (performance.now() < until);
            controller.enqueue(new TextEncoder().encode(`chunk ${busyStream.pulls}\n`));
          },
        });
        return new Response(body, { headers: { "content-type": "text/plain" } });
      },
    }),
  },
  { segments: ["api", "v1", "broken"], load: () => ({ GET: async () => Promise.reject(new Error("boom")) }) },
  { segments: ["api", "[...path]"], load: () => ({ GET: async (_r: Request, c: { params: Promise<unknown> }) => Response.json({ route: "catch-all", params: await c.params }) }) },
];

let server: http.Server;
let base: string;

beforeAll(async () => {
  const handle = createApiRouter(routes);
  server = http.createServer((request, response) => {
    void handle(request, response).then((served) => {
      if (!served) response.writeHead(299).end("left to Next.js");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});

/** One raw request (node:http, so the Host header can be anything). */
function raw(method: string, pathname: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(`${base}${pathname}`, { method, headers }, (response) => {
      let body = "";
      response.on("data", (chunk: Buffer) => (body += chunk.toString()));
      response.on("end", () => resolve({ status: response.statusCode!, headers: response.headers, body }));
    });
    request.on("error", reject);
    request.end();
  });
}

describe("matching (Next.js's app-router rules)", () => {
  const sorted = sortRoutes(routes);

  it("prefers a static segment to a dynamic one and a dynamic one to a catch-all", () => {
    expect(matchRoute(sorted, "/api/v1/calls/recent")?.route.segments).toEqual(["api", "v1", "calls", "recent"]);
    expect(matchRoute(sorted, "/api/v1/calls/abc")?.params).toEqual({ id: "abc" });
    expect(matchRoute(sorted, "/api/v1/calls")?.route.segments).toEqual(["api", "v1", "calls"]);
    expect(matchRoute(sorted, "/api/v1/calls/abc/def")?.params).toEqual({ path: ["v1", "calls", "abc", "def"] });
  });

  it("decodes params and refuses a malformed escape", () => {
    expect(matchRoute(sorted, "/api/v1/calls/a%20b")?.params).toEqual({ id: "a b" });
    expect(matchRoute(sorted, "/api/v1/calls/%E0%A4%A")).toBeNull();
  });
});

describe("serving", () => {
  it("passes the params, the body and the Host to the handler", async () => {
    expect(await (await fetch(`${base}/api/v1/calls/c-1`)).json()).toEqual({ route: "call", params: { id: "c-1" } });
    const echoed = await fetch(`${base}/api/v1/echo?x=1`, { method: "POST", body: "hello", headers: { "content-type": "text/plain" } });
    expect(await echoed.json()).toEqual({ body: "hello", host: new URL(base).host, contentType: "text/plain" });
  });

  it("answers 405 with Allow for a method the route does not serve, and HEAD without a body", async () => {
    const refused = await raw("PUT", "/api/v1/calls/c-1");
    expect(refused.status).toBe(405);
    expect(refused.headers.allow).toBe("GET, DELETE, HEAD");
    const head = await raw("HEAD", "/api/v1/calls");
    expect(head.status).toBe(200);
    expect(head.body).toBe("");
    expect((await raw("DELETE", "/api/v1/calls/c-1")).status).toBe(204);
  });

  it("writes a one-string answer whole, with its byte length, and HEAD of it without a body", async () => {
    const answer = await raw("GET", "/api/v1/known");
    expect(answer.status).toBe(201);
    expect(answer.body).toBe('{"name":"ééé","n":1}');
    expect(answer.headers["content-length"]).toBe(String(Buffer.byteLength('{"name":"ééé","n":1}')));
    expect(answer.headers["transfer-encoding"]).toBeUndefined();
    expect(answer.headers["x-kind"]).toBe("known");
    expect(answer.headers["content-type"]).toBe("application/json");
    const head = await raw("HEAD", "/api/v1/known");
    expect([head.status, head.body, head.headers["content-length"]]).toEqual([201, "", answer.headers["content-length"]]);
  });

  it("sends every Set-Cookie header", async () => {
    const response = await raw("POST", "/api/v1/cookies");
    expect(response.headers["set-cookie"]).toEqual(["a=1; Path=/; HttpOnly", "b=2; Path=/; HttpOnly"]);
  });

  it("answers 400 to a Host that is not a host, and 500 without details when a handler throws", async () => {
    const badHost = await raw("GET", "/api/v1/calls", { host: "a b" });
    expect(badHost.status).toBe(400);
    expect(JSON.parse(badHost.body)).toEqual({ error: { code: "bad_request", message: 'the Host header "a b" is not a host' } });
    const broken = await raw("GET", "/api/v1/broken");
    expect(broken.status).toBe(500);
    expect(JSON.parse(broken.body)).toEqual({ error: { code: "internal", message: "Internal error; see the console's log." } });
  });

  it("leaves paths outside /api to Next.js", async () => {
    const page = await raw("GET", "/calls/c-1");
    expect(page.status).toBe(299);
    expect(page.body).toBe("left to Next.js");
    expect((await raw("GET", "/apiary")).status).toBe(299);
  });

  it("waits for drain under backpressure without piling up listeners on the response (a warning past 10)", async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on("warning", onWarning);
    try {
      const response = await new Promise<{ bytes: number }>((resolve, reject) => {
        http.get(`${base}/api/v1/big-stream`, (answer) => {
          let bytes = 0;
          // A slow reader: the server's writes outrun it and wait for drain.
          answer.on("data", (data: Buffer) => {
            bytes += data.length;
            answer.pause();
            setTimeout(() => answer.resume(), 1);
          });
          answer.on("end", () => resolve({ bytes }));
        }).on("error", reject);
      });
      expect(response.bytes).toBe(40 * 1024 * 1024);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).toEqual([]);
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("lets the event loop turn while it writes a long answer the client reads as fast as it comes (issue 10 point 1)", async () => {
    const answer = await raw("GET", "/api/v1/busy-stream");
    expect(answer.body).toBe(Array.from({ length: 30 }, (_, i) => `chunk ${i + 1}\n`).join(""));
    // Without the router's turns, the whole answer goes out in one turn: the timer fires after the 30th chunk.
    expect(busyStream.pulls).toBe(30);
    expect(busyStream.pullsWhenTimerFired).not.toBeNull();
    expect(busyStream.pullsWhenTimerFired!).toBeLessThan(30);
  });

  it("streams the answer and aborts the request's signal when the client leaves", async () => {
    const controller = new AbortController();
    const response = await fetch(`${base}/api/v1/stream`, { signal: controller.signal });
    const reader = response.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toBe("line 1\n");
    controller.abort();
    for (let i = 0; i < 100 && aborted.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(aborted).toEqual(["stream"]);
  });
});

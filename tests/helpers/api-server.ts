import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { Readable } from "node:stream";

/** One route module of app/api, with the URL pattern its folder names. */
interface RouteEntry {
  /** Folder segments under app/, e.g. ["api", "v1", "calls", "[id]", "events"]. */
  segments: string[];
  file: string;
  /** Static segments first, then dynamic, then catch-all: as Next.js resolves them. */
  rank: number[];
}

const APP_DIR = path.resolve(__dirname, "../../app");

function findRoutes(dir: string, segments: string[] = []): RouteEntry[] {
  const found: RouteEntry[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) found.push(...findRoutes(path.join(dir, entry.name), [...segments, entry.name]));
    else if (entry.name === "route.ts") {
      found.push({ segments, file: path.join(dir, entry.name), rank: segments.map((segment) => (segment.startsWith("[...") ? 2 : segment.startsWith("[") ? 1 : 0)) });
    }
  }
  return found;
}

const ROUTES = findRoutes(path.join(APP_DIR, "api"), ["api"]).sort((a, b) => {
  for (let i = 0; i < Math.max(a.rank.length, b.rank.length); i++) {
    const difference = (a.rank[i] ?? -1) - (b.rank[i] ?? -1);
    if (difference !== 0) return difference;
  }
  return b.segments.length - a.segments.length;
});

/** The route module and params for a URL path, like Next.js's app router, or null. */
function match(pathname: string): { entry: RouteEntry; params: Record<string, string | string[]> } | null {
  const parts = pathname.split("/").filter((part) => part !== "").map((part) => decodeURIComponent(part));
  for (const entry of ROUTES) {
    const params: Record<string, string | string[]> = {};
    let ok = true;
    for (let i = 0; i < entry.segments.length; i++) {
      const segment = entry.segments[i]!;
      if (segment.startsWith("[...")) {
        const rest = parts.slice(i);
        if (rest.length === 0) ok = false;
        else params[segment.slice(4, -1)] = rest;
        break;
      }
      const part = parts[i];
      if (part === undefined) {
        ok = false;
        break;
      }
      if (segment.startsWith("[")) params[segment.slice(1, -1)] = part;
      else if (segment !== part) {
        ok = false;
        break;
      }
      if (i === entry.segments.length - 1 && parts.length !== entry.segments.length) ok = false;
    }
    if (ok) return { entry, params };
  }
  return null;
}

/** A running test API server: the real route handlers of app/api behind a real node:http server. */
export interface TestApiServer {
  url: string;
  close(): Promise<void>;
}

/**
 * Serves the console's own route handlers (app/api/**\/route.ts, loaded the way the test files import
 * them) over real HTTP on 127.0.0.1, matching paths as Next.js's app router does, so a real worker can
 * talk to the console with real requests (DESIGN.md: workers speak only HTTP). Each request is stamped
 * with its peer address like scripts/console-server.mjs does. Returns the server's URL and close().
 */
export async function startTestApiServer(): Promise<TestApiServer> {
  const modules = new Map<string, Promise<Record<string, unknown>>>();
  const server = http.createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? "/", "http://127.0.0.1");
      const found = match(url.pathname);
      if (!found) {
        response.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { code: "not_found", message: "no route" } }));
        return;
      }
      let loading = modules.get(found.entry.file);
      if (!loading) {
        loading = import(found.entry.file) as Promise<Record<string, unknown>>;
        modules.set(found.entry.file, loading);
      }
      const handler = (await loading)[request.method ?? "GET"] as ((request: Request, context: { params: Promise<Record<string, unknown>> }) => Promise<Response>) | undefined;
      if (!handler) {
        response.writeHead(405).end();
        return;
      }
      const abort = new AbortController();
      response.on("close", () => abort.abort());
      const headers = new Headers();
      for (const [name, value] of Object.entries(request.headers)) if (typeof value === "string") headers.set(name, value);
      headers.set("x-skill-console-peer", request.socket.remoteAddress ?? "unknown");
      const hasBody = request.method !== "GET" && request.method !== "HEAD";
      const webRequest = new Request(url, {
        method: request.method,
        headers,
        body: hasBody ? (Readable.toWeb(request) as ReadableStream<Uint8Array>) : undefined,
        signal: abort.signal,
        ...(hasBody ? { duplex: "half" } : {}),
      } as RequestInit);
      const answer = await handler(webRequest, { params: Promise.resolve(found.params) });
      const outgoing: Record<string, string> = {};
      answer.headers.forEach((value, name) => (outgoing[name] = value));
      response.writeHead(answer.status, outgoing);
      if (!answer.body) {
        response.end();
        return;
      }
      const reader = answer.body.getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          response.write(value);
        }
      } finally {
        response.end();
      }
    })().catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500);
      response.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { createApiRouter, type ApiRoute } from "@/lib/server/http/api-router";
// @ts-expect-error -- a plain ESM script without type declarations
import { parseTrustedProxies, stampPeerAddress } from "../../scripts/peer-address.mjs";

const APP_DIR = path.resolve(__dirname, "../../app");

/** Every app/api/**\/route.ts, loaded on first use the way the test files import them. */
function findRoutes(dir: string, segments: string[]): ApiRoute[] {
  const found: ApiRoute[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...findRoutes(full, [...segments, entry.name]));
    else if (entry.name === "route.ts") found.push({ segments, load: () => import(full) });
  }
  return found;
}

/** A running test API server: the real route handlers of app/api behind a real node:http server. */
export interface TestApiServer {
  url: string;
  close(): Promise<void>;
}

/**
 * Serves the console's own route handlers over real HTTP on 127.0.0.1 with the router the production
 * console uses for its API (lib/server/http/api-router.ts), so a real worker talks to the console with
 * real requests (DESIGN.md: workers speak only HTTP). Each request is stamped with its client address,
 * its forwarded headers dropped unless `options.trustedProxies` (CONSOLE_TRUSTED_PROXIES's syntax)
 * names the peer, by the code scripts/console-server.mjs runs. Returns the server's URL and close().
 */
export async function startTestApiServer(options: { trustedProxies?: string } = {}): Promise<TestApiServer> {
  const route = createApiRouter(findRoutes(path.join(APP_DIR, "api"), ["api"]));
  const trusted = parseTrustedProxies(options.trustedProxies ?? "");
  const server = http.createServer((request, response) => {
    stampPeerAddress(request, trusted);
    route(request, response).then(
      (served) => {
        if (!served) response.writeHead(404).end();
      },
      (error: unknown) => {
        if (!response.headersSent) response.writeHead(500);
        response.end(String(error));
      },
    );
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

#!/usr/bin/env node
/**
 * One console replica for the multi-replica tests (issue 11 point 2): the console's API — the route
 * handlers production serves, built into .console/api.mjs — behind a plain node:http server on
 * 127.0.0.1 on any free port, with the client address stamped as scripts/console-server.mjs
 * stamps it, and no pages (the API is what replicas share; the e2e suite drives pages on PostgreSQL)
 * and no local worker (tests start their workers as processes of their own). Settings come from the
 * environment the test wrote (DATABASE_URL: the test's PostgreSQL database). Prints
 * `replica: listening on <url>` once it serves, after the console started (first scan, bus listening).
 * SIGTERM ends it (exit 143); SIGKILL is what the fault tests send.
 */
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { limitConnections, parseTrustedProxies, selfUrl, stampPeerAddress } from "../../scripts/peer-address.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
process.env.NODE_ENV = "production";
const { handleApiRequest } = await import(path.join(root, ".console", "api.mjs"));
const trusted = parseTrustedProxies("");

const server = http.createServer((request, response) => {
  stampPeerAddress(request, trusted);
  handleApiRequest(request, response).then(
    (served) => {
      if (!served) response.writeHead(404, { "content-type": "text/plain" }).end("not an API path");
    },
    (error) => {
      console.error(`replica: failed to handle ${request.method} ${request.url}:`, error);
      if (!response.headersSent) response.writeHead(500, { "content-type": "text/plain" });
      response.end("Internal Server Error");
    },
  );
});
limitConnections(server, trusted);
// Any free port; the console's settings then read the one it got (PORT).
server.listen(0, "127.0.0.1", async () => {
  process.env.PORT = String(server.address().port);
  const answer = await fetch(selfUrl(server.address(), "/api/v1/auth/session"));
  await answer.body?.cancel();
  if (answer.status >= 500) {
    console.error(`replica: start-up answered ${answer.status}`);
    process.exit(1);
  }
  console.log(`replica: listening on ${selfUrl(server.address(), "")}`);
});
process.on("SIGTERM", () => {
  server.closeAllConnections();
  server.close(() => process.exit(143));
});

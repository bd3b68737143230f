#!/usr/bin/env node
/**
 * The console's HTTP server (spawned by scripts/start.mjs; `--dev` for development): Next.js through its
 * programmatic API (`next({dev, dir, hostname, port})`) behind a plain node:http server, so every request
 * can carry a client address the client cannot forge — `x-skill-console-peer`, set from the TCP socket
 * after any copy the client sent is dropped (scripts/peer-address.mjs; the sign-in rate limit relies on
 * it). Listens on HOST (default 127.0.0.1) and PORT (default 3000). Once listening, it asks itself
 * `GET /api/v1/auth/session` so the console starts at once (first loader scan, default persona, first
 * admin with its password printed once) instead of at the first visitor. SIGINT/SIGTERM stop accepting
 * connections, end this console's running calls `interrupted` with their process groups terminated
 * (the hook lib/server/console-startup.ts installs), end open connections (event streams never end by
 * themselves) after a grace period, close Next.js and exit 130/143.
 */
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { selfUrl, stampPeerAddress } from "./peer-address.mjs";

const dev = process.argv.includes("--dev");
// `next start` / `next dev` set NODE_ENV themselves; a custom server must do it before Next.js loads.
process.env.NODE_ENV = dev ? "development" : "production";
const { default: next } = await import("next");

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const hostname = process.env.HOST?.trim() || "127.0.0.1";
const port = Number(process.env.PORT?.trim() || "3000");
/** How long open connections (event streams) may stay after a stop signal before they are cut, in ms. */
const CLOSE_GRACE_MS = 3000;

const app = next({ dev, dir: root, hostname, port });
await app.prepare();
const handle = app.getRequestHandler();
const upgrade = dev ? app.getUpgradeHandler() : null;

const server = http.createServer((request, response) => {
  stampPeerAddress(request);
  handle(request, response).catch((error) => {
    console.error(`console-server: failed to handle ${request.method} ${request.url}:`, error);
    if (!response.headersSent) response.writeHead(500, { "content-type": "text/plain" });
    response.end("Internal Server Error");
  });
});
if (upgrade) {
  // Hot reloading in development talks over a WebSocket.
  server.on("upgrade", (request, socket, head) => {
    stampPeerAddress(request);
    upgrade(request, socket, head).catch(() => socket.destroy());
  });
}
server.on("error", (error) => {
  console.error(`console-server: cannot listen on ${hostname}:${port}:`, error.message);
  process.exit(1);
});
server.listen(port, hostname, () => {
  console.log(`console-server: listening on http://${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}${dev ? " (development)" : ""}`);
  void startConsole(selfUrl(server.address(), "/api/v1/auth/session"));
});

/**
 * Makes the console start now (apiRoute waits for start-up before answering; the answer itself, a 401,
 * does not matter). A failure is logged; the first real request retries the start-up.
 */
async function startConsole(url) {
  try {
    const answer = await fetch(url, { signal: AbortSignal.timeout(600_000) });
    await answer.body?.cancel();
    if (answer.status >= 500) console.error(`console-server: start-up request answered ${answer.status}; see the lines above`);
  } catch (error) {
    console.error(`console-server: start-up request failed: ${error.message}`);
  }
}

let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    // A terminal's Ctrl+C reaches both start.mjs and this process, and start.mjs passes it on too.
    if (stopping) return;
    stopping = true;
    const code = signal === "SIGINT" ? 130 : 143;
    setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS).unref();
    // Whatever hangs in Next.js's own shutdown, the process ends.
    setTimeout(() => process.exit(code), CLOSE_GRACE_MS + 5000).unref();
    const interruptCalls = globalThis[Symbol.for("skill-console.shutdown")];
    const callsEnded = typeof interruptCalls === "function" ? Promise.resolve(interruptCalls(signal)).catch((error) => console.error("console-server: ending running calls failed:", error)) : Promise.resolve();
    server.close(() => void callsEnded.then(() => app.close()).finally(() => process.exit(code)));
    server.closeIdleConnections();
  });
}

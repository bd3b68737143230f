#!/usr/bin/env node
/**
 * The console's HTTP server (spawned by scripts/start.mjs; `--dev` for development): Next.js through its
 * programmatic API (`next({dev, dir, hostname, port})`) for the pages and, in production, the API's
 * route handlers straight from node:http (.console/api.mjs: lib/server/http/api-router.ts, the same
 * handlers without Next.js's request pipeline), behind a plain node:http server, so every request
 * can carry a client address the client cannot forge — `x-skill-console-peer`, set from the TCP socket
 * after any copy the client sent is dropped, with every forwarded header (X-Forwarded-Host, …) dropped
 * too unless the peer is a proxy CONSOLE_TRUSTED_PROXIES names (scripts/peer-address.mjs; the sign-in
 * rate limit and the Origin check rely on it; an unparsable setting stops the server). Listens on HOST (default 127.0.0.1) and PORT (default 3000). Once listening, it asks itself
 * `GET /api/v1/auth/session` so the console starts at once (first loader scan, default persona, first
 * admin with its password printed once) instead of at the first visitor, then starts the local worker
 * (scripts/local-worker.mjs; CONSOLE_LOCAL_WORKER=false leaves calls to remote workers). It keeps the
 * SQLite file's one-console lock (fd 4) while it runs, taking it again if its holder is killed. Secrets come
 * over fd 3 from start.mjs, never from the environment. SIGINT/SIGTERM stop the local worker first (it
 * interrupts and reports its calls), then stop accepting connections, end open connections (event
 * streams never end by themselves) after a grace period, close Next.js and exit 130/143.
 */
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import fs from "node:fs";
import { buildWorker } from "./build-bundles.mjs";
import { watchConsoleLock } from "./console-lock.mjs";
import { databaseUrlOf } from "./database-file.mjs";
import { startLocalWorker } from "./local-worker.mjs";
import { keepConnectionsAlive, limitConnections, parseTrustedProxies, selfUrl, stampPeerAddress } from "./peer-address.mjs";

process.umask(0o077);
// Secrets handed over a pipe by start.mjs (fd 3, one JSON line), kept off the environment; read
// before Next.js loads, so the console's settings see them (lib/server/env.ts HANDED_SECRETS_KEY).
globalThis[Symbol.for("skill-console.handed-secrets")] = readHandedSecrets();

function readHandedSecrets() {
  try {
    const stats = fs.fstatSync(3);
    if (!stats.isFIFO() && !stats.isSocket()) return {};
    const text = fs.readFileSync(3, "utf8");
    fs.closeSync(3);
    const value = JSON.parse(text.trim() || "{}");
    return value && typeof value === "object" ? value : {};
  } catch {
    // No fd 3 (started by hand): settings come from the environment.
    return {};
  }
}

const dev = process.argv.includes("--dev");
// `next start` / `next dev` set NODE_ENV themselves; a custom server must do it before Next.js loads.
process.env.NODE_ENV = dev ? "development" : "production";
const { default: next } = await import("next");

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const hostname = process.env.HOST?.trim() || "127.0.0.1";
const port = Number(process.env.PORT?.trim() || "3000");
/** How long open connections (event streams) may stay after a stop signal before they are cut, in ms. */
const CLOSE_GRACE_MS = 3000;

let trustedProxies;
try {
  trustedProxies = parseTrustedProxies(process.env.CONSOLE_TRUSTED_PROXIES);
} catch (error) {
  console.error(`console-server: ${error.message}`);
  process.exit(1);
}
if (trustedProxies.list) console.log(`console-server: forwarded headers are believed only from ${trustedProxies.entries.join(", ")} (CONSOLE_TRUSTED_PROXIES)`);

const app = next({ dev, dir: root, hostname, port });
await app.prepare();
const handle = app.getRequestHandler();
const upgrade = dev ? app.getUpgradeHandler() : null;
// Production serves the API with the same route handlers outside Next.js's request pipeline
// (.console/api.mjs, built by start.mjs: scripts/build-bundles.mjs); development leaves it to Next.js
// so edits reload.
const api = dev ? null : (await import(path.join(root, ".console", "api.mjs"))).handleApiRequest;

const server = http.createServer((request, response) => {
  stampPeerAddress(request, trustedProxies);
  const served = api ? api(request, response) : Promise.resolve(false);
  served
    .then((done) => (done ? undefined : handle(request, response)))
    .catch((error) => {
      console.error(`console-server: failed to handle ${request.method} ${request.url}:`, error);
      if (!response.headersSent) response.writeHead(500, { "content-type": "text/plain" });
      response.end("Internal Server Error");
    });
});
limitConnections(server, trustedProxies);
keepConnectionsAlive(server);
if (upgrade) {
  // Hot reloading in development talks over a WebSocket.
  server.on("upgrade", (request, socket, head) => {
    stampPeerAddress(request, trustedProxies);
    upgrade(request, socket, head).catch(() => socket.destroy());
  });
}
server.on("error", (error) => {
  console.error(`console-server: cannot listen on ${hostname}:${port}:`, error.message);
  process.exit(1);
});
let localWorker = null;
watchDatabaseLock();
server.listen(port, hostname, () => {
  console.log(`console-server: listening on http://${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}${dev ? " (development)" : ""}`);
  void startConsole(selfUrl(server.address(), "/api/v1/auth/session")).then((started) => {
    if (started && !stopping && (process.env.CONSOLE_LOCAL_WORKER ?? "true").trim().toLowerCase() !== "false") void startWorker(selfUrl(server.address(), ""));
  });
});

/**
 * Keeps the one-console lock of the SQLite file (fd 4, handed over by start.mjs) while the server runs:
 * if its holder process is killed, the lock is taken again; if another console took it meanwhile, this
 * one stops (scripts/console-lock.mjs watchConsoleLock). Nothing to watch without fd 4 (PostgreSQL, or
 * started by hand).
 */
function watchDatabaseLock() {
  try {
    if (!fs.fstatSync(4).isFIFO()) return;
  } catch {
    return;
  }
  watchConsoleLock({
    fd: 4,
    databaseUrl: databaseUrlOf(globalThis[Symbol.for("skill-console.handed-secrets")]?.DATABASE_URL ?? process.env.DATABASE_URL),
    who: { url: `http://${hostname}:${port}` },
    onRetaken: () => console.error("console-server: the process holding the database's one-console lock was killed; the lock is taken again"),
    onLost: (error) => {
      console.error(`console-server: the database's one-console lock was lost to another console; stopping. ${error.message}`);
      process.kill(process.pid, "SIGTERM");
    },
  });
}

/** Starts the local worker once the console serves (scripts/local-worker.mjs). */
async function startWorker(consoleUrl) {
  const mintToken = globalThis[Symbol.for("skill-console.local-worker-token")];
  if (typeof mintToken !== "function") {
    console.error("console-server: the console did not install its local worker hook; no local worker");
    return;
  }
  try {
    // Development serves from the sources; production's start.mjs built it already.
    if (dev) await buildWorker();
  } catch (error) {
    console.error(`console-server: building the worker failed: ${error.message}`);
    return;
  }
  localWorker = startLocalWorker({ root, consoleUrl, mintToken });
}

/**
 * Makes the console start now (apiRoute waits for start-up before answering; the answer itself, a 401,
 * does not matter). A failure is logged; the first real request retries the start-up.
 */
async function startConsole(url) {
  try {
    const answer = await fetch(url, { signal: AbortSignal.timeout(600_000) });
    await answer.body?.cancel();
    if (answer.status >= 500) {
      console.error(`console-server: start-up request answered ${answer.status}; see the lines above`);
      return false;
    }
    return true;
  } catch (error) {
    console.error(`console-server: start-up request failed: ${error.message}`);
    return false;
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
    // The local worker goes first, while the console still takes its reports: it stops its calls'
    // process trees and reports them `interrupted`.
    const workerStopped = localWorker ? localWorker.stop("SIGTERM", CLOSE_GRACE_MS + 2000).catch((error) => console.error("console-server: stopping the local worker failed:", error)) : Promise.resolve();
    void workerStopped.then(() => {
      server.close(() => void Promise.resolve(app.close()).finally(() => process.exit(code)));
      server.closeIdleConnections();
    });
  });
}

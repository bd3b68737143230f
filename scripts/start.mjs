#!/usr/bin/env node
/**
 * `npm start`: installs the dependencies when node_modules is missing or stale (scripts/ensure-install.mjs),
 * takes the database's one-console lock (a second console on the same SQLite file exits naming the
 * first), applies the database migrations (a fresh clone creates its SQLite file here), builds the
 * console when the production build is missing or older than the sources, then serves it with
 * scripts/console-server.mjs (Next.js behind a node:http server that stamps each request with its
 * unforgeable peer address, starts the console at once and then its local worker) on HOST (default
 * 127.0.0.1) and PORT (default 3000). Builds the worker program (scripts/build-bundles.mjs) when stale.
 * CONSOLE_AUTH_SECRET and CONSOLE_ADMIN_PASSWORD reach the server over a pipe, never its environment.
 * Files are created for the console's user only (umask 077; ./data is protectDataFolder'd). `--dev`
 * serves the development server instead. Exits with the server's exit code; SIGINT/SIGTERM are passed
 * on to the server, and under npm the server is stopped when npm itself goes away (parent-watch.mjs).
 */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildConsoleApi, buildWorker, newestMtime } from "./build-bundles.mjs";
import { createRequire } from "node:module";
import { lockConsoleDatabase } from "./console-lock.mjs";
import { databaseUrlOf, sqliteFileOf } from "./database-file.mjs";
import { ensureInstall } from "./ensure-install.mjs";
import { stopWhenNpmGoesAway } from "./parent-watch.mjs";
import { protectDataFolder } from "./data-folder.mjs";
import { secretFrom, secretsInEnvironmentWarning, serverEnvironment, withoutSecrets } from "./server-environment.mjs";
import { guardSourceFile } from "./source-file-guard.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const bin = (name) => path.join(root, "node_modules", ".bin", name);
const dev = process.argv.includes("--dev");
// A self-hosted console phones nowhere: Next.js's anonymous telemetry is off unless the operator sets it.
process.env.NEXT_TELEMETRY_DISABLED ??= "1";
const host = process.env.HOST?.trim() || "127.0.0.1";
const port = process.env.PORT?.trim() || "3000";

/** Sources whose change makes the production build stale. */
const SOURCES = ["app", "components", "lib", "instrumentation.ts", "proxy.ts", "prisma/schema.prisma", "next.config.js", "postcss.config.mjs", "package-lock.json", "tsconfig.json"];

/**
 * Takes the database's one-console lock (scripts/console-lock.mjs) before the migrations, so a second
 * console never migrates a file in use; exits 1 with the refusal naming the first console.
 */
async function lockTheDatabase() {
  try {
    return await lockConsoleDatabase(databaseUrl, { url: `http://${host}:${port}` });
  } catch (error) {
    console.error(`start: ${error.message}`);
    process.exit(1);
  }
}

/**
 * How many migrations of prisma/migrations the database has not applied: 0 lets the start skip
 * `prisma migrate deploy`, which needs the file to itself (its engine sets locking_mode=EXCLUSIVE, so
 * any other open connection — a sqlite3 shell, a backup reading it — fails it, however idle). Read-only
 * and without waiting. Returns null when it cannot tell (no such file yet, unreadable): migrate then.
 */
function pendingMigrations() {
  const file = sqliteFileOf(databaseUrl);
  if (file === null) return null;
  let database;
  try {
    const Database = createRequire(import.meta.url)("better-sqlite3");
    database = new Database(file, { readonly: true, fileMustExist: true, timeout: 0 });
    const applied = new Set(database.prepare(`SELECT "migration_name" FROM "_prisma_migrations" WHERE "finished_at" IS NOT NULL AND "rolled_back_at" IS NULL`).all().map((row) => row.migration_name));
    const folder = path.join(root, "prisma", "migrations");
    const known = fs.readdirSync(folder).filter((name) => fs.existsSync(path.join(folder, name, "migration.sql")));
    return known.filter((name) => !applied.has(name)).length;
  } catch {
    return null;
  } finally {
    database?.close();
  }
}

/** How long the migrations wait for a database another process keeps busy before giving up, in ms. */
const MIGRATE_BUSY_WAIT_MS = 5 * 60_000;

/**
 * Applies the migrations (`prisma migrate deploy`). A file kept busy by another process (a backup, a
 * sqlite3 shell, even an idle one: the engine wants the file alone) makes Prisma's JS engine fail with an error it cannot name
 * (`WASM_ERROR: unknown variant SocketTimeout`): that is retried, saying so, every few seconds for up
 * to MIGRATE_BUSY_WAIT_MS. A start with nothing to migrate never runs it (pendingMigrations). Any other
 * failure exits at once with prisma's output shown.
 */
function migrate() {
  const deadline = Date.now() + MIGRATE_BUSY_WAIT_MS;
  for (let attempt = 1; ; attempt++) {
    // The migration is short-lived: it may get the URL (and its password) in its environment.
    const result = spawnSync(bin("prisma"), ["migrate", "deploy"], { cwd: root, env: { ...process.env, DATABASE_URL: databaseUrl }, encoding: "utf8" });
    const output = `${result.stdout ?? ""}${result.stderr ?? ""}`;
    if (result.status === 0) {
      process.stdout.write(result.stdout ?? "");
      return;
    }
    const busy = /SocketTimeout|database is locked|SQLITE_BUSY/i.test(output);
    if (!busy || Date.now() > deadline) {
      process.stdout.write(output);
      console.error(`start: prisma migrate deploy failed (exit ${result.status ?? result.signal})${busy ? `: the database stayed busy for ${MIGRATE_BUSY_WAIT_MS / 60_000} minutes` : ""}`);
      process.exit(result.status ?? 1);
    }
    console.log(`start: the database is busy or open in another process (a sqlite3 shell, a backup): the migrations need it alone; retrying in 3 s (attempt ${attempt})`);
    spawnSync("sleep", ["3"]);
  }
}

/** Runs a command to its end; on failure calls `onFailure` (e.g. to undo an edit) and exits with its code. */
function run(command, args, what, onFailure = () => {}) {
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit", env: process.env });
  if (result.status !== 0) {
    console.error(`start: ${what} failed (exit ${result.status ?? result.signal})`);
    onFailure();
    process.exit(result.status ?? 1);
  }
}

// Everything the console writes (the database, the auth secret) is for its own user only.
process.umask(0o077);
/** The database this start migrates and serves: DATABASE_URL, or the file DATABASE_URL_FILE names (a postgresql:// URL holds a password). */
let databaseUrl;
try {
  databaseUrl = databaseUrlOf(secretFrom(process.env, "DATABASE_URL") ?? undefined);
} catch (error) {
  console.error(`start: ${error.message}`);
  process.exit(1);
}
ensureInstall();
protectDataFolder(path.join(root, "data"));
const consoleLock = await lockTheDatabase();
const pending = pendingMigrations();
if (pending === 0) console.log("start: the database schema is up to date");
else {
  console.log(`start: applying database migrations${pending === null ? "" : ` (${pending} pending)`}`);
  migrate();
}

if (!dev) {
  const buildId = path.join(root, process.env.NEXT_DIST_DIR || ".next", "BUILD_ID");
  const builtAt = fs.existsSync(buildId) ? fs.statSync(buildId).mtimeMs : 0;
  const changedAt = Math.max(...SOURCES.map((source) => newestMtime(path.join(root, source))));
  if (builtAt < changedAt) {
    console.log(builtAt === 0 ? "start: no production build yet, building (a minute or two)" : "start: sources changed since the last build, rebuilding");
    // next build adds its build folder's types to tsconfig.json; a per-run folder of the e2e suite
    // (NEXT_DIST_DIR) must not leave that edit behind in the checkout.
    // Its mtime goes back too: else the next start on this build would find tsconfig.json newer and rebuild.
    const restoreTsconfigFile = guardSourceFile(path.join(root, "tsconfig.json"));
    // process.exit() skips `finally`, so a failed build restores it through run()'s onFailure too.
    const restoreTsconfig = () => {
      if (process.env.NEXT_DIST_DIR) restoreTsconfigFile();
    };
    try {
      run(bin("next"), ["build"], "next build", restoreTsconfig);
    } finally {
      restoreTsconfig();
    }
  }
}

try {
  const [worker, api] = await Promise.all([buildWorker(), dev ? { fresh: true } : buildConsoleApi()]);
  if (!worker.fresh) console.log("start: built the worker (.worker/worker.mjs)");
  if (!api.fresh) console.log("start: built the console's API router (.console/api.mjs)");
} catch (error) {
  console.error(`start: building the worker or the API router failed: ${error.message}`);
  process.exit(1);
}

console.log(`start: serving the skill console on http://${host}:${port}`);
/**
 * V8 flags of the console's server (issue 10 point 6: RSS flat under load). Under a sustained load V8
 * let the old generation grow to several times the live heap before collecting it and kept the pages:
 * in a 10-minute soak of 32 clients the live heap stayed at ~100 MiB (heap snapshots after a full GC)
 * while the reserved heap grew from 135 to 486 MiB and RSS from 326 to 720 MiB. Growing it by half
 * the live heap at most keeps RSS flat (318 → 323 MiB) for the same GC time (4.0% of the run, 4.3%
 * before) and the same latencies. A V8 flag of Node 20 (DESIGN pins it).
 */
const CONSOLE_SERVER_V8_FLAGS = ["--heap-growing-percent=50"];

// The secrets go to the server over a pipe (fd 3), not in its environment for its whole life.
let handed;
try {
  handed = withoutSecrets(serverEnvironment(process.env));
} catch (error) {
  console.error(`start: ${error.message}`);
  process.exit(1);
}
const { env: serverEnv, secrets } = handed;
const secretsWarning = secretsInEnvironmentWarning(handed.inEnvironment);
if (secretsWarning) console.log(`start: ${secretsWarning}`);
const server = spawn(process.execPath, [...CONSOLE_SERVER_V8_FLAGS, path.join(root, "scripts", "console-server.mjs"), ...(dev ? ["--dev"] : [])], {
  cwd: root,
  // fd 4: the database lock's pipe, so the lock lives as long as the server (console-server.mjs leaves it open).
  stdio: ["inherit", "inherit", "inherit", "pipe", consoleLock ? consoleLock.pipe : "ignore"],
  env: { ...serverEnv, HOST: host, PORT: port },
});
server.stdio[3].end(`${JSON.stringify(secrets)}\n`);
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => server.kill(signal));
stopWhenNpmGoesAway(() => {
  console.log("start: npm went away; stopping the console");
  server.kill("SIGTERM");
});
server.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));

#!/usr/bin/env node
/**
 * `npm run worker`: starts one worker alone (DESIGN.md "Workers and the sandbox"), on this host or
 * another, pointed at the console by CONSOLE_URL and authenticated by WORKER_TOKEN or the file
 * WORKER_TOKEN_FILE names (made by an admin on the Workers page; the file keeps it out of npm's and
 * this launcher's environment too). Installs the dependencies when stale, builds the worker program when stale
 * (scripts/build-bundles.mjs), then runs `node .worker/worker.mjs` with this environment minus the
 * console's secrets and minus WORKER_TOKEN, which it hands over as the first line of the worker's stdin
 * (so the long-lived worker's environment never holds it). WORKER_NAME, WORKER_LABELS,
 * WORKER_CONCURRENCY, WORKER_STATE_DIR, ONGRID_SKILLS_EXTERNAL_DIRS, SKILLS_PATH and the SKILL_* sandbox
 * settings are the worker's own. SIGINT/SIGTERM are passed on; exits with the worker's exit code.
 */
import { spawn } from "node:child_process";
import { stopWhenNpmGoesAway } from "./parent-watch.mjs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildWorker } from "./build-bundles.mjs";
import { protectDataFolder } from "./data-folder.mjs";
import { ensureInstall } from "./ensure-install.mjs";
import { secretFrom, secretsInEnvironmentWarning, workerEnvironment } from "./server-environment.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
let token;
try {
  token = secretFrom(process.env, "WORKER_TOKEN")?.trim();
} catch (error) {
  console.error(`worker: ${error.message}`);
  process.exit(2);
}
if (!token) {
  console.error("worker: set WORKER_TOKEN (or WORKER_TOKEN_FILE, a file holding it) to a worker token (an admin creates one on the Workers page) and CONSOLE_URL to the console");
  process.exit(2);
}
const tokenWarning = secretsInEnvironmentWarning(process.env.WORKER_TOKEN ? ["WORKER_TOKEN"] : []);
if (tokenWarning) console.log(`worker: ${tokenWarning}`);
if (!process.env.CONSOLE_URL?.trim()) {
  console.error("worker: set CONSOLE_URL to the console's address, e.g. http://10.0.0.5:3000");
  process.exit(2);
}

process.umask(0o077);
ensureInstall();
if (!process.env.WORKER_STATE_DIR) protectDataFolder(path.join(root, "data"));
try {
  await buildWorker();
} catch (error) {
  console.error(`worker: building the worker failed: ${error.message}`);
  process.exit(1);
}
const child = spawn(process.execPath, [path.join(root, ".worker", "worker.mjs")], {
  cwd: root,
  stdio: ["pipe", "inherit", "inherit"],
  env: workerEnvironment(process.env),
});
child.stdin.on("error", () => undefined);
child.stdin.write(`${token}\n`);
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
stopWhenNpmGoesAway(() => {
  console.log("worker: npm went away; stopping the worker");
  child.kill("SIGTERM");
});
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));

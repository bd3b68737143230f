#!/usr/bin/env node
/**
 * The end-to-end suite's PostgreSQL console (issue 11 point 1: the e2e suite runs against PostgreSQL
 * too): starts a throwaway PostgreSQL cluster in a temp folder (scripts/postgres-cluster.mjs), waits
 * until the SQLite console of the same run answers at E2E_WAIT_FOR_URL (so the production build it
 * makes is there and this start reuses it instead of building the same folder at once), then runs
 * `node scripts/start.mjs` with DATABASE_URL_FILE naming a file that holds the cluster's URL (start.mjs
 * hands it to the server over its pipe: no environment holds the password). Once that console answers,
 * starts a second replica on the same database at E2E_REPLICA_PORT (when set) exactly as README's
 * Compose file runs one: `node scripts/start.mjs` with CONSOLE_LOCAL_WORKER=false (e2e/replicas.spec.ts
 * drives both in one browser). SIGTERM or SIGINT (playwright.config.ts: gracefulShutdown) stops both
 * consoles, then the cluster, and removes its folder. Exits with the first console's code.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { setTimeout as delay } from "node:timers/promises";
import { startPostgresCluster } from "../scripts/postgres-cluster.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const waitFor = process.env.E2E_WAIT_FOR_URL;
/** Longest wait for the SQLite console's build, in ms (a fresh build takes a few minutes on 2 cores). */
const BUILD_WAIT_MS = 15 * 60_000;

const cluster = await startPostgresCluster({ database: "console_e2e" });
console.log(`postgres-server: PostgreSQL cluster on port ${cluster.port}`);
let console_ = null;
let replica = null;
let stopping = false;
/** Resolves when `child` has exited (at once when it has or never started). */
const exited = (child) => (!child || child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once("exit", resolve)));
const stop = async (code) => {
  if (stopping) return;
  stopping = true;
  if (replica && replica.exitCode === null) replica.kill("SIGTERM");
  await Promise.race([exited(replica), delay(15_000)]);
  cluster.stop();
  process.exit(code);
};
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    if (!console_ || console_.exitCode !== null) return void stop(1);
    console_.kill(signal);
  });
}

if (waitFor) {
  const deadline = Date.now() + BUILD_WAIT_MS;
  for (;;) {
    try {
      await fetch(waitFor);
      break;
    } catch {
      if (Date.now() > deadline || stopping) {
        console.error(`postgres-server: ${waitFor} did not answer within ${BUILD_WAIT_MS / 60_000} minutes`);
        await stop(1);
      }
      await delay(500);
    }
  }
}

// As an operator keeps the password out of every environment: DATABASE_URL_FILE, a file of mode 0600.
const urlFile = path.join(cluster.dir, "database-url");
fs.writeFileSync(urlFile, `${cluster.url}\n`, { mode: 0o600 });
const env = { ...process.env, DATABASE_URL_FILE: urlFile };
delete env.DATABASE_URL;
console_ = spawn(process.execPath, [path.join(root, "scripts", "start.mjs")], { cwd: root, stdio: "inherit", env });
console_.on("exit", (code, signal) => void stop(code ?? (signal ? 1 : 0)));

const replicaPort = process.env.E2E_REPLICA_PORT;
if (replicaPort) {
  // After the first console migrated the database and answers: the replica reuses its build and schema.
  const firstUrl = `http://127.0.0.1:${process.env.PORT}/api/v1/auth/session`;
  for (;;) {
    if (stopping) break;
    try {
      await fetch(firstUrl);
      break;
    } catch {
      await delay(250);
    }
  }
  if (!stopping) {
    console.log(`postgres-server: starting a second replica on port ${replicaPort} (CONSOLE_LOCAL_WORKER=false)`);
    replica = spawn(process.execPath, [path.join(root, "scripts", "start.mjs")], { cwd: root, stdio: "inherit", env: { ...env, PORT: replicaPort, CONSOLE_LOCAL_WORKER: "false" } });
    replica.on("exit", (code, signal) => {
      if (!stopping) console.error(`postgres-server: the second replica exited (${code ?? signal})`);
    });
  }
}

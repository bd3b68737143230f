import fs from "node:fs";
import path from "node:path";
import { defineConfig, devices } from "@playwright/test";
import { adminStorageState, E2E_ADMIN, E2E_AUTH_SECRET, E2E_LOGIN_MAX_FAILURES } from "./e2e/support/e2e-admin";

/**
 * End-to-end tests in Debian's Chromium (browsers cannot be downloaded here; DESIGN.md machine facts):
 * the production console is built and served by `node scripts/start.mjs` on PORT with a fresh SQLite
 * database and two allow-list roots — the bundled skills/ and e2e/fixtures/skills (the e2e fixture skills) —
 * and a native skills path holding a copy of the bundled skills/ plus e2e/fixtures/native (an
 * unavailable native skill, which no bundled one is on a host that has their programs).
 * The server's first admin comes from e2e/support/e2e-admin.ts; the `setup` project (e2e/auth.setup.ts)
 * signs it in through the API and every spec starts from that session (storage state), sending
 * Origin = baseURL so the console's Origin check accepts the `request` fixture's state-changing calls.
 */
// Several engineers (and their helpers) may run the suite at once in one checkout: outside CI each run
// gets its own port, database and build folder, so no run reuses or rebuilds another's server. The
// choice is made once in the runner process and inherited by its workers through the environment.
// Below Linux's ephemeral port range (32768–60999 by default), where any outgoing connection may hold
// a port: 32852–32854 were picked once, and the second replica found its port taken (EADDRINUSE).
if (!process.env.E2E_PORT) process.env.E2E_PORT = process.env.CI ? "3123" : String(20_000 + (process.pid % 10_000));
const PORT = Number(process.env.E2E_PORT);
const BASE_URL = `http://127.0.0.1:${PORT}`;
/** The same console on PostgreSQL (e2e/postgres-server.mjs), on the next port: the whole suite runs against both. */
const POSTGRES_PORT = PORT + 1;
const POSTGRES_BASE_URL = `http://127.0.0.1:${POSTGRES_PORT}`;
/** A second replica of the PostgreSQL console (same database, no local worker: e2e/postgres-server.mjs) on the port after it; e2e/replicas.spec.ts reads it. */
process.env.E2E_REPLICA_PORT = String(POSTGRES_PORT + 1);
/** The PostgreSQL console's local worker keeps its state apart from the SQLite console's (a state folder is one worker's). */
const POSTGRES_WORKER_STATE_DIR = path.join(__dirname, "data", `e2e-worker-${POSTGRES_PORT}`);
const DATABASE_FILE = path.join(__dirname, "data", `e2e-${PORT}.db`);
const DIST_DIR = process.env.CI ? ".next" : `.next-e2e-${PORT}`;
const SKILL_ROOTS = [path.join(__dirname, "skills"), path.join(__dirname, "e2e", "fixtures", "skills")];
const NATIVE_SKILLS_PATH = path.join(__dirname, "data", `e2e-native-${PORT}`);
/** Each console installs packs into its own folder (a pack enabled on one is not the other's). */
const PACKS_PATHS = [PORT, POSTGRES_PORT].map((port) => path.join(__dirname, "data", `e2e-packs-${port}`));
// Made once, in the runner process (its workers inherit the flag and must not touch the folder the server reads).
if (!process.env.E2E_NATIVE_READY) {
  fs.rmSync(NATIVE_SKILLS_PATH, { recursive: true, force: true });
  fs.cpSync(path.join(__dirname, "skills"), NATIVE_SKILLS_PATH, { recursive: true });
  fs.cpSync(path.join(__dirname, "e2e", "fixtures", "native"), NATIVE_SKILLS_PATH, { recursive: true });
  // The databases start empty: so do the packs installed into them.
  for (const folder of PACKS_PATHS) fs.rmSync(folder, { recursive: true, force: true });
  process.env.E2E_NATIVE_READY = "1";
}

// What this run's server leaves, removed by the global teardown (outside CI).
process.env.E2E_RUN_FILES = [path.join(__dirname, DIST_DIR), POSTGRES_WORKER_STATE_DIR, DATABASE_FILE, `${DATABASE_FILE}-wal`, `${DATABASE_FILE}-shm`, `${DATABASE_FILE}-journal`, NATIVE_SKILLS_PATH, ...PACKS_PATHS].join("\n");

/** Browser settings of both Chromium projects. */
const chromium = {
  ...devices["Desktop Chrome"],
  viewport: { width: 1440, height: 900 },
  headless: true,
  launchOptions: {
    executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium",
    // We run as root in containers: Chromium's sandbox needs --no-sandbox there.
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  },
};

/** What both consoles are started with (their DATABASE_URL, PORT and start command differ). */
const SERVER_ENV = {
  HOST: "127.0.0.1",
  NEXT_DIST_DIR: DIST_DIR,
  ONGRID_SKILLS_EXTERNAL_DIRS: SKILL_ROOTS.join(":"),
  SKILLS_PATH: NATIVE_SKILLS_PATH,
  CONSOLE_ADMIN_EMAIL: E2E_ADMIN.email,
  CONSOLE_ADMIN_PASSWORD: E2E_ADMIN.password,
  CONSOLE_AUTH_SECRET: E2E_AUTH_SECRET,
  LOGIN_MAX_FAILURES: String(E2E_LOGIN_MAX_FAILURES),
  // The native skills are a copy of the bundled ones (outside the bundled folder) and a fixture
  // writes its run markers to the host's /tmp: the operator allows what they declare.
  SKILL_SANDBOX_ALLOW_PATHS: "/",
};

/**
 * Playwright configuration: a sign-in setup project and a Chromium project against the production
 * console on PORT (SQLite), and the same pair against a second console on PORT + 1 that runs the same
 * build on PostgreSQL (issue 11 point 1).
 */
export default defineConfig({
  testDir: "./e2e",
  globalTeardown: "./e2e/support/remove-run-files.ts",
  outputDir: process.env.CI ? "./e2e/.artifacts/results" : `./e2e/.artifacts/results-${PORT}`,
  fullyParallel: false,
  workers: 1,
  forbidOnly: !!process.env.CI,
  retries: process.env.CI ? 1 : 0,
  timeout: 60_000,
  expect: { timeout: 15_000 },
  reporter: process.env.CI ? [["list"], ["html", { open: "never", outputFolder: "e2e/.artifacts/report" }]] : [["list"]],
  use: {
    baseURL: BASE_URL,
    viewport: { width: 1440, height: 900 },
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    // Cookie-authenticated POST/PUT/PATCH/DELETE need the console's own Origin (DESIGN.md, 403 bad_origin);
    // browsers send it themselves, the `request` fixture only with this.
    extraHTTPHeaders: { origin: BASE_URL },
  },
  projects: [
    { name: "setup", testMatch: /auth\.setup\.ts$/ },
    { name: "chromium", dependencies: ["setup"], use: { ...chromium, storageState: adminStorageState(PORT) } },
    { name: "setup-postgresql", testMatch: /auth\.setup\.ts$/, use: { baseURL: POSTGRES_BASE_URL, extraHTTPHeaders: { origin: POSTGRES_BASE_URL } } },
    {
      name: "chromium-postgresql",
      dependencies: ["setup-postgresql"],
      use: { ...chromium, baseURL: POSTGRES_BASE_URL, extraHTTPHeaders: { origin: POSTGRES_BASE_URL }, storageState: adminStorageState(POSTGRES_PORT) },
    },
  ],
  webServer: [
    {
      command: "node e2e/reset-database.mjs && node scripts/start.mjs",
      // 401 until signed in; Playwright counts any answer below 404 as up.
      url: `${BASE_URL}/api/v1/auth/session`,
      // The first run builds the console (next build), which takes a while on 2 cores.
      timeout: 600_000,
      reuseExistingServer: !process.env.CI,
      stdout: "pipe",
      stderr: "pipe",
      env: { ...SERVER_ENV, PORT: String(PORT), DATABASE_URL: `file:${DATABASE_FILE}`, E2E_DATABASE_FILE: DATABASE_FILE, PACKS_PATH: PACKS_PATHS[0]! },
    },
    {
      // Its own throwaway PostgreSQL cluster; starts once the first console answers, on the build it made.
      command: "node e2e/postgres-server.mjs",
      url: `${POSTGRES_BASE_URL}/api/v1/auth/session`,
      timeout: 900_000,
      reuseExistingServer: !process.env.CI,
      stdout: "pipe",
      stderr: "pipe",
      // SIGTERM, so it stops its cluster and removes its folder (the default SIGKILL would leave PostgreSQL running).
      gracefulShutdown: { signal: "SIGTERM", timeout: 20_000 },
      env: { ...SERVER_ENV, PORT: String(POSTGRES_PORT), PACKS_PATH: PACKS_PATHS[1]!, E2E_REPLICA_PORT: process.env.E2E_REPLICA_PORT, WORKER_STATE_DIR: POSTGRES_WORKER_STATE_DIR, E2E_WAIT_FOR_URL: `${BASE_URL}/api/v1/auth/session` },
    },
  ],
});

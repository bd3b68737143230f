import fs from "node:fs";
import path from "node:path";
import { loadWorkerConfig } from "@/lib/server/env";
import { ensureConsoleStarted } from "@/lib/server/console-startup";
import { createWorkerToken } from "@/lib/server/workers/worker-tokens";
import { Worker } from "@/lib/worker/worker";
import { startTestApiServer, type TestApiServer } from "./api-server";

interface TestWorkers {
  server: TestApiServer | null;
  workers: Worker[];
  starting: Promise<void> | null;
  /** Folder the test console lives in (its workers' state dirs go under it). */
  dir: string | null;
  enabled: boolean;
}

const KEY = Symbol.for("skill-console.test-workers");
const state = ((globalThis as Record<symbol, TestWorkers | undefined>)[KEY] ??= { server: null, workers: [], starting: null, dir: null, enabled: true });

/** The URL of this test file's API server (started on first use). */
export async function testApiUrl(): Promise<string> {
  state.server ??= await startTestApiServer();
  return state.server.url;
}

/**
 * Starts one real worker (lib/worker/worker.ts, the code `npm run worker` runs) in this test process,
 * talking to the test console's route handlers over real HTTP (startTestApiServer) with a real worker
 * token, on the test console's roots and skills path (from the environment setUpTestConsole wrote).
 * `env` overrides settings of this worker only (WORKER_NAME, WORKER_LABELS, ONGRID_SKILLS_EXTERNAL_DIRS…).
 * Resolves once it is registered. Returns the worker.
 */
export async function startTestWorker(env: Record<string, string> = {}, options: { labels?: string[]; bwrapCandidates?: string[] } = {}): Promise<Worker> {
  await ensureConsoleStarted();
  const url = await testApiUrl();
  const name = env.WORKER_NAME ?? `test-worker-${state.workers.length + 1}`;
  // Passable (0711) like a console's data folder: the sandbox's uid reaches the snapshots below it.
  const stateDir = path.join(state.dir ?? passableTempDir(), `worker-${name}`);
  const config = loadWorkerConfig({ ...process.env, WORKER_STATE_DIR: stateDir, WORKER_NAME: name, ...env }, { consoleUrl: url });
  const { token } = await createWorkerToken({ email: "test@console.local", userId: null }, { name, labels: options.labels ?? [] });
  const worker = new Worker(config, token, "test", () => undefined, options.bwrapCandidates);
  await worker.start();
  state.workers.push(worker);
  return worker;
}

function passableTempDir(): string {
  const dir = fs.mkdtempSync("/tmp/skill-worker-");
  fs.chmodSync(dir, 0o711);
  return dir;
}

/**
 * Makes sure the test console has its default worker (like the local worker of `npm start`): started
 * once per test console, on first need. Tests that manage workers themselves call
 * `useOwnWorkers()` first.
 */
export function ensureDefaultTestWorker(): Promise<void> {
  if (!state.enabled || state.workers.length > 0) return Promise.resolve();
  state.starting ??= startTestWorker({ WORKER_NAME: "local" }, { labels: ["local"] })
    .then(() => undefined)
    .finally(() => {
      state.starting = null;
    });
  return state.starting;
}

/** This test file starts its own workers (startTestWorker): no default worker is started for it. */
export function useOwnWorkers(): void {
  state.enabled = false;
}

/** Stops every test worker (their calls end interrupted) and the API server; setUpTestConsole calls it between consoles. */
export async function stopTestWorkers(dir: string | null = null): Promise<void> {
  const workers = state.workers.splice(0);
  await Promise.allSettled(workers.map((worker) => worker.stop()));
  state.dir = dir;
  state.enabled = true;
}

/** The test workers running now. */
export function testWorkers(): readonly Worker[] {
  return state.workers;
}

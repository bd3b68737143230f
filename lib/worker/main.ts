/**
 * The worker program (`npm run worker`, and the local worker `npm start` runs beside the console;
 * DESIGN.md "Workers and the sandbox"): a small Node process with no Next.js and no database
 * credentials. Its settings come from the environment (loadWorkerConfig: CONSOLE_URL, WORKER_NAME,
 * WORKER_LABELS, WORKER_CONCURRENCY, WORKER_STATE_DIR, its own roots, the sandbox settings); its token
 * arrives as the first line of stdin from the process that started it (scripts/worker.mjs or the
 * console), never through its environment, and stdin closing means that process is gone: the worker
 * then stops its calls and exits. SIGTERM/SIGINT stop it the same way. Exit codes: 0 stopped, 1 could
 * not start (bad settings, refused token), 2 no token.
 */
import { ConfigError, loadWorkerConfig } from "@/lib/server/env";
import { readTokenThenWatch } from "./stdin-token";
import { Worker } from "./worker";

declare const __WORKER_VERSION__: string | undefined;

async function main(): Promise<void> {
  const version = typeof __WORKER_VERSION__ === "string" ? __WORKER_VERSION__ : "dev";
  let config;
  try {
    config = loadWorkerConfig(process.env);
  } catch (error) {
    console.error(`worker: ${error instanceof ConfigError ? error.message : String(error)}`);
    process.exit(1);
  }
  let worker: Worker | null = null;
  let exiting = false;
  const exit = (code: number, why: string) => {
    if (exiting) return;
    exiting = true;
    console.log(`worker: stopping (${why})`);
    const done = worker ? worker.stop(`the worker stopped (${why}) while the call ran`) : Promise.resolve();
    // Whatever hangs in reporting, the process ends.
    setTimeout(() => process.exit(code), config.killGraceMs + 10_000).unref();
    void done.finally(() => process.exit(code));
  };
  const token = await readTokenThenWatch(() => exit(0, "the process that started it went away"));
  if (!token) {
    console.error("worker: no worker token on stdin (start it with `npm run worker`, which reads WORKER_TOKEN)");
    process.exit(2);
  }
  for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, () => exit(0, signal));
  worker = new Worker(config, token, version);
  const started = worker;
  // A worker the console cut off (its token revoked) has stopped its calls: the process ends.
  void started.whenStopped().then(() => {
    if (started.cutOffReason !== null) exit(1, "the console refused its token");
  });
  try {
    await worker.start();
  } catch (error) {
    console.error(`worker: could not start: ${(error as Error).message}`);
    process.exit(1);
  }
}

void main();

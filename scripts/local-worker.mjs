/**
 * The local worker of `npm start` (DESIGN.md "Workers and the sandbox": `npm start` starts the console
 * and one local worker; stopping the console stops it). Spawned by scripts/console-server.mjs once the
 * console serves: `node .worker/worker.mjs` with the console's environment minus its secrets
 * (workerEnvironment: no DATABASE_URL, no auth secret, no passwords), CONSOLE_URL pointing at the
 * console, and its freshly minted token as the first line of its stdin (never an environment
 * variable). The pipe stays open: if the console dies, even by kill -9, the worker sees stdin close
 * and stops its calls. A worker that exits on its own (a crash, kill -9) is started again after a
 * backoff (1 s doubling to 30 s, reset after a minute of running), with a new token.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { workerEnvironment } from "./server-environment.mjs";

/** Starts and supervises the local worker. Returns `{ stop(signal): Promise<void> }`. */
export function startLocalWorker({ root, consoleUrl, mintToken, log = (line) => console.log(line) }) {
  let child = null;
  let stopping = false;
  let backoff = 1000;
  let restartTimer = null;
  let exited = Promise.resolve();

  const launch = async () => {
    restartTimer = null;
    if (stopping) return;
    let token;
    try {
      token = await mintToken();
    } catch (error) {
      log(`console-server: could not mint the local worker's token: ${error.message}; retrying`);
      return scheduleRestart();
    }
    if (stopping) return;
    const startedAt = Date.now();
    child = spawn(process.execPath, [path.join(root, ".worker", "worker.mjs")], {
      cwd: root,
      stdio: ["pipe", "inherit", "inherit"],
      env: { ...workerEnvironment(process.env), CONSOLE_URL: consoleUrl, WORKER_NAME: process.env.WORKER_NAME || "local" },
    });
    child.stdin.on("error", () => undefined);
    child.stdin.write(`${token}\n`);
    exited = new Promise((resolve) =>
      child.once("exit", (code, signal) => {
        child = null;
        resolve();
        if (stopping) return;
        if (Date.now() - startedAt > 60_000) backoff = 1000;
        log(`console-server: the local worker exited (${signal ?? `code ${code}`}); starting it again in ${backoff / 1000} s`);
        scheduleRestart();
      }),
    );
  };
  const scheduleRestart = () => {
    restartTimer = setTimeout(launch, backoff);
    restartTimer.unref?.();
    backoff = Math.min(backoff * 2, 30_000);
  };
  void launch();

  return {
    /** Stops the worker (SIGTERM: it interrupts and reports its calls) and resolves once it exited, or after `graceMs`. */
    async stop(signal = "SIGTERM", graceMs = 10_000) {
      stopping = true;
      if (restartTimer) clearTimeout(restartTimer);
      if (!child) return;
      child.kill(signal);
      const timer = setTimeout(() => child?.kill("SIGKILL"), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

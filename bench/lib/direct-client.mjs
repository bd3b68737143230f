/**
 * The bench's side of the baseline process (bench/lib/direct-spawner-process.ts, bundled into
 * .bench-build/): starts it, speaks its line protocol, and reads its CPU and RSS from /proc, the same
 * way the console's and the worker's are read.
 */
import { spawn } from "node:child_process";
import readline from "node:readline";
import { buildBenchModule } from "./build-bench.mjs";
import { readCpu, readRss } from "./server.mjs";

/**
 * Builds (when stale) and starts the baseline process in `cwd` with environment `env` (the console's
 * local worker's, so it probes and configures the sandbox the same way), then initialises its spawner
 * with `options` (bench/lib/direct-spawn.ts DirectSpawnerOptions, without workerEnv: it is `env`).
 * Resolves with the client:
 *   pid, description, hiddenPaths, bwrapPath
 *   sandboxed(skill, stdin, { stampedStderr }) / plain(…) → { ms, outcome, ok, latencies? }
 *   load(kind, skill, clients, durationMs, maxCalls) → { done, errors, elapsedMs, latencies }
 *   bwrapArgv(skill) → string[]
 *   ballast(mib) → the process's RSS in MiB after holding `mib` MiB more (0: none)
 *   cpu() → { selfMs, childrenMs } of the process, rss() → { rssMiB, hwmMiB }
 *   close()
 * Rejects when the process cannot start or its spawner cannot be set up.
 */
export async function startDirectSpawner({ cwd, env, options }) {
  const entry = await buildBenchModule("direct-spawner-process");
  const child = spawn(process.execPath, [entry], { cwd, env, stdio: ["pipe", "pipe", "inherit"] });
  const pending = new Map();
  let nextId = 0;
  let exited = null;
  child.once("exit", (code, signal) => {
    exited = `the baseline process exited (${signal ?? `code ${code}`})`;
    for (const { reject } of pending.values()) reject(new Error(exited));
    pending.clear();
  });
  readline.createInterface({ input: child.stdout }).on("line", (line) => {
    const message = JSON.parse(line);
    const waiter = pending.get(message.id);
    if (!waiter) return;
    pending.delete(message.id);
    if ("error" in message) waiter.reject(new Error(message.error));
    else waiter.resolve(message.result);
  });
  const call = (op, fields = {}) =>
    new Promise((resolve, reject) => {
      if (exited) return reject(new Error(exited));
      const id = ++nextId;
      pending.set(id, { resolve, reject });
      child.stdin.write(`${JSON.stringify({ id, op, ...fields })}\n`);
    });
  const info = await call("init", { options: { ...options, workerEnv: env } });
  return {
    pid: child.pid,
    ...info,
    sandboxed: (skill, stdin, { stampedStderr = false } = {}) => call("run", { kind: "sandboxed", skill, stdin, stampedStderr }),
    plain: (skill, stdin, { stampedStderr = false } = {}) => call("run", { kind: "plain", skill, stdin, stampedStderr }),
    load: (kind, skill, clients, durationMs, maxCalls) => call("load", { kind, skill, clients, durationMs, maxCalls }),
    bwrapArgv: (skill) => call("argv", { skill }),
    ballast: (mib) => call("ballast", { mib }),
    cpu: () => readCpu(child.pid),
    rss: () => readRss(child.pid),
    async close() {
      if (exited) return;
      await call("close").catch(() => undefined);
    },
  };
}

/**
 * The baselines' direct spawn: runs a skill's entry the way the console's executor does (own process
 * group, cwd = skill folder, exactly the skill's env, args JSON on stdin, stdout collected) but with
 * nothing else around it — no HTTP, validation, database, timeline or group bookkeeping.
 */
import { spawn } from "node:child_process";

/**
 * Spawns `skill.entry` with `stdinText`, waits until it exited and its pipes closed. `onStderr(chunk,
 * arrivedAtMs)` sees each stderr chunk as it is read. Resolves `{ ms, code, stdout }`; rejects on a
 * spawn error.
 */
export function spawnDirect(skill, stdinText, onStderr) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(skill.entry, [], { cwd: skill.cwd, env: skill.env, detached: true, stdio: ["pipe", "pipe", "pipe"] });
    const out = [];
    child.stdout.on("data", (chunk) => out.push(chunk));
    child.stderr.on("data", (chunk) => onStderr?.(chunk));
    child.stdin.on("error", () => undefined);
    child.stdin.end(stdinText);
    child.once("error", reject);
    child.once("close", (code) => resolve({ ms: performance.now() - started, code, stdout: Buffer.concat(out).toString("utf8") }));
  });
}

/** Runs `task(i)` from `clients` concurrent loops until `durationMs` passed or `maxTasks` started. */
export async function runConcurrently(clients, durationMs, maxTasks, task) {
  const started = performance.now();
  let next = 0;
  const loop = async () => {
    while (performance.now() - started < durationMs && next < maxTasks) await task(next++);
  };
  await Promise.all(Array.from({ length: clients }, loop));
  return { elapsedMs: performance.now() - started, started: next };
}

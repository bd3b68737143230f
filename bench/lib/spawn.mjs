/**
 * The concurrency loop of the throughput benchmark: C clients, each doing one task after another,
 * until a duration passed or a task count was started. (The baselines' spawns run in the baseline
 * process, bench/lib/direct-spawner-process.ts, which loops the same way.)
 */

/** Runs `task(i)` from `clients` concurrent loops until `durationMs` passed or `maxTasks` started. Resolves `{ elapsedMs, started }`. */
export async function runConcurrently(clients, durationMs, maxTasks, task) {
  const started = performance.now();
  let next = 0;
  const loop = async () => {
    while (performance.now() - started < durationMs && next < maxTasks) await task(next++);
  };
  await Promise.all(Array.from({ length: clients }, loop));
  return { elapsedMs: performance.now() - started, started: next };
}

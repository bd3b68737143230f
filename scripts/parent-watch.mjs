/**
 * Stops a launcher whose npm went away. `npm start` / `npm run worker` run our launcher as npm's child;
 * npm passes Ctrl+C (SIGINT, sent to the whole terminal group) on, but a SIGTERM to npm itself (from a
 * script, a supervisor, `kill $!`) makes npm exit and leaves the launcher, the console or the worker
 * running with no parent, still serving and holding the database lock.
 */

/** How often the parent is looked at, in ms. */
const PARENT_CHECK_MS = 1000;

/** The parent when this module loaded: as early as the launcher's imports run, before any slow start-up step. */
const STARTING_PARENT = process.ppid;

/**
 * When this process runs under npm (npm_lifecycle_event is set), calls `onGone` once its parent (npm)
 * has exited — the process is then re-parented, so its parent pid is no longer the one it started
 * with, or is 1 (npm is never init; it may have gone before this module even loaded). Started by hand (`node
 * scripts/start.mjs`, perhaps under nohup), nothing is watched: a shell that exits must not stop it.
 * The timer never keeps the process alive on its own.
 */
export function stopWhenNpmGoesAway(onGone) {
  if (!process.env.npm_lifecycle_event) return;
  const timer = setInterval(() => {
    if (process.ppid === STARTING_PARENT && process.ppid !== 1) return;
    clearInterval(timer);
    onGone();
  }, PARENT_CHECK_MS);
  timer.unref();
}

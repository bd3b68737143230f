import path from "node:path";

/**
 * The opening of a background thread's source (`new Worker(source, { eval: true })`): the validation
 * thread (args-validator.ts) and the WAL checkpoint thread (lib/server/db-checkpointer.ts). It sets the
 * thread's nice value to 10, so that work there never takes a CPU from the main thread, which serves
 * every request (issue 10 point 1; on 2 cores the main thread otherwise waited for one): /proc/thread-self
 * names this thread's id, and setpriority on a thread id sets that thread's nice value alone (Linux;
 * elsewhere it stays at the process's). It defines `load(name)`, which requires a package from the
 * working directory or else from one of `workerData.searchPaths` (moduleSearchPaths) and returns its
 * default export when it has one.
 */
export const THREAD_PREAMBLE_SOURCE = String.raw`
const { parentPort, workerData } = require("node:worker_threads");
try {
  const threadId = Number(require("node:fs").readlinkSync("/proc/thread-self").split("/").pop());
  if (Number.isInteger(threadId) && threadId > 0) require("node:os").setPriority(threadId, 10);
} catch {}
const load = (name) => {
  let loaded;
  try {
    loaded = require(name);
  } catch (error) {
    const from = workerData.searchPaths.find((dir) => { try { require.resolve(name, { paths: [dir] }); return true; } catch { return false; } });
    if (from === undefined) throw error;
    loaded = require(require.resolve(name, { paths: [from] }));
  }
  return loaded.default || loaded;
};
`;

/** Where a background thread looks for packages when the working directory has no node_modules: beside the server script. Pass as `workerData.searchPaths`. */
export function moduleSearchPaths(): string[] {
  return [process.cwd(), process.argv[1] ? path.dirname(process.argv[1]) : ""].filter((dir) => dir !== "");
}

import { mkdirSync } from "node:fs";
import path from "node:path";
// @ts-expect-error -- a plain ESM module without type declarations, shared with scripts/start.mjs
import { acquireExclusiveLock, LockBusyError } from "../../scripts/exclusive-lock.mjs";

/** Who holds a worker state folder: the worker's name and its pid (for the refusal's message). */
interface StateLockOwner {
  name: string;
  pid: number;
}

/** A worker state folder another live worker holds (two workers must never share one). */
export class StateFolderInUseError extends Error {}

/** The lock of one state folder, held by this process until `release()` or its death. */
export interface StateLock {
  /** Lets the lock go (ends its holder process). Never throws. */
  release(): void;
}

const LOCK_FILE = "worker.lock";

/**
 * Takes the state folder's lock for this process (DESIGN.md "Workers and the sandbox": a worker kills
 * at start what a previous run of it left, from the records in its state folder — so a second live
 * worker on the same folder would kill the first one's running calls). The lock is the kernel's,
 * on `<stateDir>/worker.lock` (scripts/exclusive-lock.mjs: flock(1), released when this process ends
 * however it ends, never stale); the holder's name and pid are written beside it for the refusal's message. Resolves the lock; rejects with
 * StateFolderInUseError naming the holder and WORKER_STATE_DIR, or Error when flock cannot run.
 */
export async function acquireStateLock(stateDir: string, workerName: string): Promise<StateLock> {
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  try {
    const lock = (await acquireExclusiveLock(path.join(stateDir, LOCK_FILE), { name: workerName, pid: process.pid } satisfies StateLockOwner)) as { release(): void };
    return { release: () => lock.release() };
  } catch (error) {
    if (!(error instanceof LockBusyError)) throw new Error(`the worker state folder ${stateDir} cannot be locked: ${(error as Error & { reason?: string }).reason ?? (error as Error).message}`);
    const owner = (error as LockBusyError & { owner: Partial<StateLockOwner> | null }).owner;
    const who = typeof owner?.name === "string" && Number.isInteger(owner.pid) ? `worker ${owner.name} (pid ${owner.pid})` : "another worker";
    throw new StateFolderInUseError(`the worker state folder ${stateDir} is in use by ${who}; give each worker its own WORKER_STATE_DIR (e.g. WORKER_STATE_DIR=./data/worker-${workerName})`);
  }
}

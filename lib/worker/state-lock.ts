import { linkSync, mkdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { readProcessIdentity, type ProcessIdentity } from "@/lib/server/executor";

/** Who holds a worker state folder: the worker's name and its process. */
interface StateLockOwner {
  name: string;
  pid: number;
  identity: ProcessIdentity;
}

/** A worker state folder another live worker holds (two workers must never share one). */
export class StateFolderInUseError extends Error {}

/** The lock of one state folder, held by this process until `release()`. */
export interface StateLock {
  /** Removes the lock file if it is still this process's. Never throws. */
  release(): void;
}

const LOCK_FILE = "worker.lock";

/**
 * Takes `<stateDir>/worker.lock` for this process (DESIGN.md "Workers and the sandbox": a worker kills
 * at start what a previous run of it left, from the records in its state folder — so a second live
 * worker on the same folder would kill the first one's running calls). The file (mode 0600) names the worker, its pid and the process's identity (boot id, start time); a lock
 * whose process is gone or is another process now is stale and taken over. Throws
 * StateFolderInUseError naming the live holder and WORKER_STATE_DIR; file-system errors as they are.
 */
export function acquireStateLock(stateDir: string, workerName: string): StateLock {
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const file = path.join(stateDir, LOCK_FILE);
  const mine: StateLockOwner = { name: workerName, pid: process.pid, identity: readProcessIdentity(process.pid) };
  // Written whole first, then linked into place: link(2) fails if the lock exists, so no reader ever
  // sees a half-written lock and two starting workers cannot both create it.
  const staged = `${file}.${process.pid}.tmp`;
  writeFileSync(staged, JSON.stringify(mine), { mode: 0o600 });
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(staged, file);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST" || attempt >= 2) throw error;
      }
      const holder = readOwner(file);
      if (holder !== null && isAlive(holder)) {
        throw new StateFolderInUseError(
          `the worker state folder ${stateDir} is in use by worker ${holder.name} (pid ${holder.pid}); give each worker its own WORKER_STATE_DIR (e.g. WORKER_STATE_DIR=./data/worker-${workerName})`,
        );
      }
      // Stale (its process is gone, or the pid is another process now): taken over.
      rmSync(file, { force: true });
    }
  } finally {
    rmSync(staged, { force: true });
  }
  return {
    release() {
      const holder = readOwner(file);
      if (holder?.pid !== process.pid || holder.identity.procStart !== mine.identity.procStart) return;
      try {
        unlinkSync(file);
      } catch {
        // Gone already.
      }
    },
  };
}

function readOwner(file: string): StateLockOwner | null {
  try {
    const owner = JSON.parse(readFileSync(file, "utf8")) as StateLockOwner;
    return Number.isInteger(owner.pid) && owner.identity ? owner : null;
  } catch {
    // Unreadable (locks are linked in whole, so not half-written): it names no live process.
    return null;
  }
}

/** Whether the lock's process is still the one that wrote it (same boot, same start time). */
function isAlive(owner: StateLockOwner): boolean {
  if (owner.pid === process.pid) return false;
  const now = readProcessIdentity(owner.pid);
  if (now.procStart === null) return false;
  if (owner.identity.bootId !== null && now.bootId !== null && owner.identity.bootId !== now.bootId) return false;
  return owner.identity.procStart === null || owner.identity.procStart === now.procStart;
}

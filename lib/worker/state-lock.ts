import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

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
const OWNER_FILE = "worker.lock.owner";
/** flock's exit code when the lock is taken (--conflict-exit-code). */
const BUSY = 75;

/**
 * Takes the state folder's lock for this process (DESIGN.md "Workers and the sandbox": a worker kills
 * at start what a previous run of it left, from the records in its state folder — so a second live
 * worker on the same folder would kill the first one's running calls). The lock is the kernel's:
 * `flock(1)` (util-linux) holds an exclusive flock on `<stateDir>/worker.lock` for as long as its child
 * `cat` reads this process's pipe, so it is released when this process ends however it ends (even by
 * kill -9) and can never go stale, and two workers starting at once cannot both get it. The holder's
 * name and pid are written beside it for the refusal's message. Resolves the lock; rejects with
 * StateFolderInUseError naming the holder and WORKER_STATE_DIR, or Error when flock cannot run.
 */
export async function acquireStateLock(stateDir: string, workerName: string): Promise<StateLock> {
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const lockFile = path.join(stateDir, LOCK_FILE);
  const ownerFile = path.join(stateDir, OWNER_FILE);
  const holder = spawn("flock", ["--nonblock", "--conflict-exit-code", String(BUSY), lockFile, "sh", "-c", "echo locked; exec cat >/dev/null"], {
    stdio: ["pipe", "pipe", "ignore"],
    env: { PATH: "/usr/bin:/bin" } as unknown as NodeJS.ProcessEnv,
  });
  holder.stdin!.on("error", () => undefined);
  const outcome = await new Promise<"locked" | { code: number | null; error?: Error }>((resolve) => {
    let text = "";
    holder.stdout!.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes("locked\n")) resolve("locked");
    });
    holder.once("error", (error) => resolve({ code: null, error }));
    holder.once("exit", (code) => resolve({ code }));
  });
  if (outcome !== "locked") {
    if (outcome.code === BUSY) {
      const owner = readOwner(ownerFile);
      const who = owner ? `worker ${owner.name} (pid ${owner.pid})` : "another worker";
      throw new StateFolderInUseError(
        `the worker state folder ${stateDir} is in use by ${who}; give each worker its own WORKER_STATE_DIR (e.g. WORKER_STATE_DIR=./data/worker-${workerName})`,
      );
    }
    const why = outcome.error ? ((outcome.error as NodeJS.ErrnoException).code === "ENOENT" ? "flock (util-linux) is not installed" : outcome.error.message) : `flock exited with ${outcome.code}`;
    throw new Error(`the worker state folder ${stateDir} cannot be locked: ${why}`);
  }
  // Only the lock's holder writes this, whole (renamed into place).
  const staged = `${ownerFile}.${process.pid}.tmp`;
  writeFileSync(staged, JSON.stringify({ name: workerName, pid: process.pid } satisfies StateLockOwner), { mode: 0o600 });
  renameSync(staged, ownerFile);
  // The holder must not keep this process's event loop alive on its own.
  unref(holder);
  return {
    release() {
      if (readOwner(ownerFile)?.pid === process.pid) rmSync(ownerFile, { force: true });
      holder.stdin!.end();
    },
  };
}

function unref(child: ChildProcess): void {
  child.unref();
  for (const stream of [child.stdin, child.stdout]) (stream as unknown as { unref?: () => void } | null)?.unref?.();
}

function readOwner(file: string): StateLockOwner | null {
  try {
    const owner = JSON.parse(readFileSync(file, "utf8")) as StateLockOwner;
    return typeof owner.name === "string" && Number.isInteger(owner.pid) ? owner : null;
  } catch {
    return null;
  }
}

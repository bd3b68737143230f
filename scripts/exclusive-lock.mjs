/**
 * A kernel lock held by this process for as long as it lives: `flock(1)` (util-linux) takes an
 * exclusive flock on a lock file and keeps it while its child `cat` reads a pipe from this process, so
 * the lock goes when this process ends however it ends (even kill -9), can never go stale, and two
 * processes asking at once cannot both get it. The holder's particulars are written beside it (renamed
 * into place, by the holder only) for the refusal's message. Used for "one console per SQLite file"
 * (scripts/start.mjs) and "one worker per state folder" (lib/worker/state-lock.ts).
 */
import { spawn } from "node:child_process";
import fs from "node:fs";

/** flock's exit code when the lock is taken (--conflict-exit-code). */
const BUSY = 75;

/** The lock is held by someone else; `owner` is what they wrote beside it (null when unreadable). */
export class LockBusyError extends Error {
  constructor(lockFile, owner) {
    super(`${lockFile} is held by another process`);
    this.owner = owner;
  }
}

/**
 * Takes the exclusive lock of `lockFile` (created mode 0600 when missing) for this process and writes
 * `owner` (a JSON object) to `<lockFile><ownerSuffix>` (default `.owner`). When the lock is taken
 * through another name of the same file (a hard link), the holder's record is found beside the name
 * it locked, which the kernel tells (lockHolderPath). Resolves `{ pipe, lost, release() }`: `pipe` is the write end of the
 * holder's pipe — hand it to a child process as one of its stdio descriptors and the lock also lives as
 * long as that child — `lost` resolves if the holder is killed before release(), and release() lets the lock go (once every copy of the pipe is closed). Rejects
 * with LockBusyError (carrying the holder's owner record) when another process holds it, or Error when
 * flock cannot run (its `reason` names util-linux when flock is missing).
 */
export async function acquireExclusiveLock(lockFile, owner, ownerSuffix = ".owner") {
  const ownerFile = `${lockFile}${ownerSuffix}`;
  const holder = spawn("flock", ["--nonblock", "--conflict-exit-code", String(BUSY), lockFile, "sh", "-c", "echo locked; exec cat >/dev/null"], {
    stdio: ["pipe", "pipe", "ignore"],
    env: { PATH: "/usr/bin:/bin" },
  });
  holder.stdin.on("error", () => undefined);
  const outcome = await new Promise((resolve) => {
    let text = "";
    holder.stdout.on("data", (chunk) => {
      text += chunk.toString();
      if (text.includes("locked\n")) resolve("locked");
    });
    holder.once("error", (error) => resolve({ code: null, error }));
    holder.once("exit", (code) => resolve({ code }));
  });
  if (outcome !== "locked") {
    if (outcome.code === BUSY) {
      const heldAs = lockHolderPath(lockFile);
      throw new LockBusyError(lockFile, readLockOwner(ownerFile) ?? (heldAs !== null && heldAs !== lockFile ? readLockOwner(`${heldAs}${ownerSuffix}`) : null));
    }
    const why = outcome.error ? (outcome.error.code === "ENOENT" ? "flock (util-linux) is not installed" : outcome.error.message) : `flock exited with ${outcome.code}`;
    throw Object.assign(new Error(`${lockFile} cannot be locked: ${why}`), { reason: why });
  }
  const staged = `${ownerFile}.${process.pid}.tmp`;
  fs.writeFileSync(staged, JSON.stringify(owner), { mode: 0o600 });
  fs.renameSync(staged, ownerFile);
  // The holder must not keep this process's event loop alive on its own.
  holder.unref();
  holder.stdin.unref?.();
  holder.stdout.unref?.();
  let released = false;
  return {
    pipe: holder.stdin,
    /** Resolves if the holder ends while the lock was not released (it was killed: the lock is gone). */
    lost: new Promise((resolve) => holder.once("exit", () => released || resolve())),
    release() {
      released = true;
      if (readLockOwner(ownerFile)?.pid === owner.pid) fs.rmSync(ownerFile, { force: true });
      holder.stdin.end();
    },
  };
}

/** The owner record written beside `lockFile`'s lock, or null when missing or unreadable. */
export function readLockOwner(ownerFile) {
  try {
    const value = JSON.parse(fs.readFileSync(ownerFile, "utf8"));
    return value && typeof value === "object" ? value : null;
  } catch {
    return null;
  }
}

/**
 * The name by which the process holding `lockFile`'s flock opened it, as the kernel tells: the holder
 * from /proc/locks (an FLOCK on the file's inode), then that process's descriptor of the same device
 * and inode in /proc/<pid>/fd (readable for processes of the same user). Null when unknown (no /proc,
 * another user's process, the holder gone meanwhile).
 */
export function lockHolderPath(lockFile) {
  let target;
  let table;
  try {
    target = fs.statSync(lockFile);
    table = fs.readFileSync("/proc/locks", "utf8");
  } catch {
    return null;
  }
  for (const line of table.split("\n")) {
    // "3: FLOCK  ADVISORY  WRITE 12345 00:2d:678 0 EOF"; a blocked waiter's line has "->" before FLOCK.
    const fields = line.trim().split(/\s+/);
    if (fields[1] !== "FLOCK" || !fields[5]?.endsWith(`:${target.ino}`)) continue;
    const pid = fields[4];
    let descriptors = [];
    try {
      descriptors = fs.readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of descriptors) {
      try {
        const opened = fs.statSync(`/proc/${pid}/fd/${fd}`);
        if (opened.dev === target.dev && opened.ino === target.ino) return fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        // closed meanwhile
      }
    }
  }
  return null;
}

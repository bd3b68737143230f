/**
 * One console per SQLite file (issue 10 point 2: SQLite is one console's database; PostgreSQL is the
 * way to run several). scripts/start.mjs takes this lock before it migrates and hands it to the server,
 * so it lives as long as the server does, whatever happens to the launcher.
 */
import fs from "node:fs";
import path from "node:path";
import { sqliteFileOf } from "./database-file.mjs";
import { acquireExclusiveLock, LockBusyError } from "./exclusive-lock.mjs";

/** A second console asked for a SQLite file a live console holds. */
export class DatabaseInUseError extends Error {}

/**
 * Takes the exclusive kernel lock of the SQLite file `databaseUrl` names — an flock on the database
 * file itself (created empty when missing: SQLite takes an empty file for a new database; flock and
 * SQLite's own fcntl locks do not meet), so every name of the file (a symlinked folder, a hard link,
 * `..`) meets the same lock, and the refusal names the holder whatever name it locked (scripts/exclusive-lock.mjs: released when every holder process has ended,
 * never stale) — with this process's pid, `who.url` and the time written beside its real path. Resolves the lock (`{pipe, release}`; hand
 * `pipe` to the server as a stdio descriptor) or null for a URL that is not a SQLite file. Rejects
 * with DatabaseInUseError naming the console that holds it (pid, URL, since when, folder) and what to
 * do, or Error when flock cannot run.
 */
export async function lockConsoleDatabase(databaseUrl, who) {
  const file = sqliteFileOf(databaseUrl);
  if (file === null) return null;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.closeSync(fs.openSync(file, "a", 0o600));
  const real = fs.realpathSync.native(file);
  try {
    return await acquireExclusiveLock(real, { pid: process.pid, url: who.url, since: new Date().toISOString(), cwd: process.cwd() }, ".console-owner");
  } catch (error) {
    if (!(error instanceof LockBusyError)) throw error;
    const owner = error.owner;
    const holder = owner && Number.isInteger(owner.pid) ? `the console started by pid ${owner.pid} (${owner.url ?? "its URL unknown"}, since ${owner.since ?? "an unknown time"}, in ${owner.cwd ?? "an unknown folder"})` : "another console";
    throw new DatabaseInUseError(
      `the database ${real} is in use by ${holder}. A SQLite database serves one console: stop that one, or give this one its own DATABASE_URL (several consoles on one database need a postgresql:// DATABASE_URL).`,
    );
  }
}

/**
 * Keeps this console's lock for as long as it runs (issue 10 point 2). The lock is a kernel lock held by
 * a small holder process (scripts/exclusive-lock.mjs); when someone kills that process, the kernel
 * lets the lock go while the console still uses the file, and a second console could start on it.
 * This notices: it writes a newline into the lock's pipe `fd` (the descriptor the launcher handed over)
 * every `everyMs`, and a failed write (EPIPE: nobody reads it any more) means the lock is gone. It then
 * takes the lock again (lockConsoleDatabase with `databaseUrl`, `who`) and calls onRetaken(); if
 * another console took it meanwhile, calls onLost(error) — the caller must stop, as two consoles would
 * share the file. A lock it took again is watched the same way (its holder's end). Returns stop().
 */
export function watchConsoleLock({ fd, databaseUrl, who, everyMs = 2000, onRetaken, onLost }) {
  let stopped = false;
  let timer = null;
  const retake = async () => {
    if (stopped) return;
    let lock;
    try {
      lock = await lockConsoleDatabase(databaseUrl, who);
    } catch (error) {
      if (!stopped) onLost(error);
      return;
    }
    if (stopped || lock === null) return;
    onRetaken(lock);
    void lock.lost.then(retake);
  };
  const probe = () => {
    fs.write(fd, "\n", (error) => {
      if (stopped) return;
      if (error) void retake();
      else timer = setTimeout(probe, everyMs).unref();
    });
  };
  timer = setTimeout(probe, everyMs).unref();
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}

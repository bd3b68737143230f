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
 * `..`) meets the same lock (scripts/exclusive-lock.mjs: released when every holder process has ended,
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
    return await acquireExclusiveLock(real, { pid: process.pid, url: who.url, since: new Date().toISOString(), cwd: process.cwd() }, `${real}.console-owner`);
  } catch (error) {
    if (!(error instanceof LockBusyError)) throw error;
    const owner = error.owner;
    const holder = owner && Number.isInteger(owner.pid) ? `the console started by pid ${owner.pid} (${owner.url ?? "its URL unknown"}, since ${owner.since ?? "an unknown time"}, in ${owner.cwd ?? "an unknown folder"})` : "another console";
    throw new DatabaseInUseError(
      `the database ${real} is in use by ${holder}. A SQLite database serves one console: stop that one, or give this one its own DATABASE_URL (several consoles on one database will need PostgreSQL, which this release does not support yet).`,
    );
  }
}

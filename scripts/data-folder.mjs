import fs from "node:fs";
import path from "node:path";

/**
 * Makes the console's data folder safe to share a host with sandboxed skills and other users
 * (issue 9): the folder itself is 0711 — others may pass through it to the worker's read-only
 * snapshots (bound into sandboxes as the skill's folder), never list it — and every file in it (the
 * SQLite database and its -wal/-shm, the generated auth secret) is made 0600 when it is wider.
 * Creates the folder when missing. Never follows a link; throws the file system's error.
 */
export function protectDataFolder(folder) {
  fs.mkdirSync(folder, { recursive: true, mode: 0o711 });
  fs.chmodSync(folder, 0o711);
  for (const name of fs.readdirSync(folder)) {
    const file = path.join(folder, name);
    const stats = fs.lstatSync(file);
    if (stats.isFile() && (stats.mode & 0o077) !== 0) fs.chmodSync(file, 0o600);
  }
}

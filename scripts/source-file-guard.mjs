/**
 * Puts a source file back exactly as it was — its bytes and its modification time — after a tool
 * edited it. `next build` adds its build folder's types to tsconfig.json; start.mjs puts the file back
 * (a per-run build folder of the e2e suite must not leave that edit in the checkout). Written back with
 * a new mtime, tsconfig.json was newer than the build it came from, so the next `npm start` on that
 * build found "sources changed" and rebuilt it: the e2e suite's PostgreSQL console rebuilt the SQLite
 * console's build while that one served it (pages broken mid-run once a second replica started late).
 */
import fs from "node:fs";

/**
 * Records `file`'s bytes and times now; returns `restore()`, which writes them back when the file's
 * bytes differ by then (and then its atime and mtime too), and otherwise leaves it alone. Returns
 * whether it wrote. Throws when `file` cannot be read.
 */
export function guardSourceFile(file) {
  const bytes = fs.readFileSync(file);
  const { atime, mtime } = fs.statSync(file);
  return function restore() {
    if (fs.readFileSync(file).equals(bytes)) return false;
    fs.writeFileSync(file, bytes);
    fs.utimesSync(file, atime, mtime);
    return true;
  };
}

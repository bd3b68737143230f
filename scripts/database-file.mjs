/**
 * Where the console's SQLite database lives, for the processes that must know it before the console's
 * own code loads (scripts/start.mjs takes the one-console lock beside it; lib/server/database-url.ts
 * and prisma.config.ts resolve the same URL).
 */
import path from "node:path";

/** Default SQLite database URL, relative to the working directory (DESIGN.md: "a SQLite file under ./data/"). */
export const DEFAULT_DATABASE_URL = "file:./data/console.db";

/** The database URL in use: DATABASE_URL trimmed, or DEFAULT_DATABASE_URL when unset or blank. */
export function databaseUrlOf(raw) {
  return raw && raw.trim() !== "" ? raw.trim() : DEFAULT_DATABASE_URL;
}

/** The absolute path of the SQLite file a `file:` URL names (relative to the working directory), or null for another kind of URL. */
export function sqliteFileOf(url) {
  return url.startsWith("file:") ? path.resolve(url.slice("file:".length)) : null;
}

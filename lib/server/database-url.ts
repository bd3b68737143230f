import fs from "node:fs";
import path from "node:path";

/** Default SQLite database file, relative to the working directory (DESIGN.md: "a SQLite file under ./data/"). */
export const DEFAULT_DATABASE_URL = "file:./data/console.db";

/**
 * Resolves the database URL the console and the Prisma CLI share.
 * Takes the raw DATABASE_URL (or undefined) and returns a `file:` URL with an absolute path, creating the
 * parent folder of a SQLite file so a fresh clone's first start can create its database.
 * Throws Error when the URL names a provider this build does not support yet (PostgreSQL comes later).
 */
export function resolveDatabaseUrl(raw: string | undefined): string {
  const url = raw && raw.trim() !== "" ? raw.trim() : DEFAULT_DATABASE_URL;
  if (!url.startsWith("file:")) {
    throw new Error(`DATABASE_URL ${JSON.stringify(url)} is not supported yet: only file: (SQLite) URLs are`);
  }
  const filePath = path.resolve(url.slice("file:".length));
  fs.mkdirSync(path.dirname(filePath), { recursive: true });
  return `file:${filePath}`;
}

/** Returns the filesystem path of a resolved `file:` URL. */
export function sqlitePathOf(url: string): string {
  return url.slice("file:".length);
}

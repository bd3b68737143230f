import fs from "node:fs";
import path from "node:path";
// @ts-expect-error -- a plain ESM module without type declarations, shared with scripts/start.mjs
import { databaseUrlOf, DEFAULT_DATABASE_URL as DEFAULT_URL, sqliteFileOf } from "../../scripts/database-file.mjs";

/** Default SQLite database file, relative to the working directory (DESIGN.md: "a SQLite file under ./data/"). */
export const DEFAULT_DATABASE_URL: string = DEFAULT_URL;

/**
 * Resolves the database URL the console and the Prisma CLI share.
 * Takes the raw DATABASE_URL (or undefined) and returns either a PostgreSQL URL as given
 * (`postgresql://` or `postgres://`, DESIGN.md "Several replicas") or a `file:` URL with an absolute
 * path, creating the parent folder of a SQLite file so a fresh clone's first start can create its database.
 * Throws Error when the URL names another provider (the message says which two are supported).
 */
export function resolveDatabaseUrl(raw: string | undefined): string {
  const url: string = databaseUrlOf(raw);
  if (isPostgresUrl(url)) return url;
  const filePath: string | null = sqliteFileOf(url);
  if (filePath === null) {
    throw new Error(`DATABASE_URL ${JSON.stringify(url.replace(/\/\/[^@/]*@/, "//…@"))} is not supported: use a file: (SQLite) or postgresql:// URL`);
  }
  fs.mkdirSync(path.dirname(filePath), { recursive: true });
  return `file:${filePath}`;
}

/**
 * Whether `url` names a PostgreSQL database (`postgresql://` or `postgres://`, DESIGN.md "Several
 * replicas"). The Prisma CLI migrates such a database with prisma/postgresql/ (prisma.config.ts), and
 * db.ts opens it through the pg driver adapter.
 */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/** Returns the filesystem path of a resolved `file:` URL. */
export function sqlitePathOf(url: string): string {
  return url.slice("file:".length);
}

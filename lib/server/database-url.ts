import fs from "node:fs";
import path from "node:path";
// @ts-expect-error -- a plain ESM module without type declarations, shared with scripts/start.mjs
import { databaseUrlOf, DEFAULT_DATABASE_URL as DEFAULT_URL, sqliteFileOf } from "../../scripts/database-file.mjs";

/** Default SQLite database file, relative to the working directory (DESIGN.md: "a SQLite file under ./data/"). */
export const DEFAULT_DATABASE_URL: string = DEFAULT_URL;

/**
 * Resolves the database URL the console and the Prisma CLI share.
 * Takes the raw DATABASE_URL (or undefined) and returns a `file:` URL with an absolute path, creating the
 * parent folder of a SQLite file so a fresh clone's first start can create its database.
 * Throws Error when the URL names a provider this build does not support yet (PostgreSQL comes later).
 */
export function resolveDatabaseUrl(raw: string | undefined): string {
  const url: string = databaseUrlOf(raw);
  const filePath: string | null = sqliteFileOf(url);
  if (filePath === null) {
    throw new Error(`DATABASE_URL ${JSON.stringify(url)} is not supported yet: only file: (SQLite) URLs are`);
  }
  fs.mkdirSync(path.dirname(filePath), { recursive: true });
  return `file:${filePath}`;
}

/**
 * Whether `url` names a PostgreSQL database (`postgresql://` or `postgres://`, DESIGN.md "Several
 * replicas"). The Prisma CLI migrates such a database with prisma/postgresql/ (prisma.config.ts); the
 * console itself does not run on one yet (resolveDatabaseUrl refuses it).
 */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/** Returns the filesystem path of a resolved `file:` URL. */
export function sqlitePathOf(url: string): string {
  return url.slice("file:".length);
}

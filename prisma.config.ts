/**
 * Prisma CLI configuration: the JS engine with a driver adapter, so `generate`, `migrate deploy` and
 * `migrate diff` need no native engine download (DESIGN.md, machine facts). The database URL comes from
 * DATABASE_URL, defaulting to the same SQLite file the console opens (lib/server/database-url.ts). A
 * `postgresql://` URL selects the PostgreSQL schema and migrations under prisma/postgresql/ (the same
 * models, derived by scripts/postgres-schema.mjs) and the pg driver adapter.
 */
import path from "node:path";
import { defineConfig } from "prisma/config";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { ConsolePostgresAdapter } from "./lib/server/postgres-adapter";
import { isPostgresUrl, resolveDatabaseUrl } from "./lib/server/database-url";

const requested = process.env.DATABASE_URL?.trim() ?? "";
const postgres = isPostgresUrl(requested);
const databaseUrl = postgres ? requested : resolveDatabaseUrl(process.env.DATABASE_URL);
process.env.DATABASE_URL = databaseUrl;
const folder = postgres ? path.join("prisma", "postgresql") : "prisma";

export default defineConfig({
  engine: "js",
  experimental: { adapter: true },
  schema: path.join(folder, "schema.prisma"),
  migrations: { path: path.join(folder, "migrations") },
  async adapter() {
    return postgres ? new ConsolePostgresAdapter({ connectionString: databaseUrl }) : new PrismaBetterSQLite3({ url: databaseUrl });
  },
});

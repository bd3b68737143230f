/**
 * Prisma CLI configuration: the JS engine with a driver adapter, so `generate`, `migrate deploy` and
 * `migrate diff` need no native engine download (DESIGN.md, machine facts). The database URL comes from
 * DATABASE_URL, defaulting to the same SQLite file the console opens (lib/server/database-url.ts).
 */
import path from "node:path";
import { defineConfig } from "prisma/config";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { resolveDatabaseUrl } from "./lib/server/database-url";

const databaseUrl = resolveDatabaseUrl(process.env.DATABASE_URL);
process.env.DATABASE_URL = databaseUrl;

export default defineConfig({
  engine: "js",
  experimental: { adapter: true },
  schema: path.join("prisma", "schema.prisma"),
  migrations: { path: path.join("prisma", "migrations") },
  async adapter() {
    return new PrismaBetterSQLite3({ url: databaseUrl });
  },
});

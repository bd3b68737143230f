#!/usr/bin/env node
/**
 * The PostgreSQL copy of the Prisma schema (DESIGN.md "Several replicas": "one Prisma schema per
 * provider", the same models on both). prisma/schema.prisma is the one that is edited; this derives
 * prisma/postgresql/schema.prisma from it (the datasource's provider, a header saying where it comes
 * from), and tests/db/postgres-migrations.test.ts fails when the committed copy is not what this
 * derives. After editing the models: `node scripts/postgres-schema.mjs`, then write both migrations
 * (README, after the Development table: the SQLite one with `prisma migrate diff … --to-schema-datamodel
 * prisma/schema.prisma`, the PostgreSQL one the same way against prisma/postgresql/).
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** The PostgreSQL schema's path (prisma.config.ts picks it, and prisma/postgresql/migrations, for a postgresql:// DATABASE_URL). */
export const POSTGRES_SCHEMA = path.join(root, "prisma", "postgresql", "schema.prisma");

/**
 * Where `prisma generate` writes the PostgreSQL client, relative to prisma/postgresql/ (Prisma resolves
 * a generator's output from its schema's folder). lib/server/db.ts loads it for a postgresql:// URL;
 * package.json's postinstall generates it beside the SQLite one.
 */
export const POSTGRES_CLIENT_OUTPUT = "../../node_modules/@skill-console/prisma-postgresql";

const HEADER = "// GENERATED from prisma/schema.prisma by scripts/postgres-schema.mjs: edit that file, then run the script.\n";

/**
 * The PostgreSQL schema text for the SQLite schema text `source`: the same text with the datasource's
 * provider set to "postgresql" and the generator's output set to POSTGRES_CLIENT_OUTPUT, after a header. Throws when `source` has no `provider = "sqlite"`
 * datasource line to replace (the derivation would silently copy a schema it does not understand).
 */
export function postgresSchemaOf(source) {
  const datasource = /(datasource\s+db\s*\{[^}]*?provider\s*=\s*)"sqlite"/;
  if (!datasource.test(source)) throw new Error('prisma/schema.prisma has no datasource db with provider = "sqlite"');
  const generator = /(generator\s+client\s*\{[^}]*?)(\n\})/;
  if (!generator.test(source)) throw new Error("prisma/schema.prisma has no generator client block");
  return HEADER + source.replace(datasource, '$1"postgresql"').replace(generator, `$1\n  output     = "${POSTGRES_CLIENT_OUTPUT}"$2`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const text = postgresSchemaOf(fs.readFileSync(path.join(root, "prisma", "schema.prisma"), "utf8"));
  fs.mkdirSync(path.dirname(POSTGRES_SCHEMA), { recursive: true });
  fs.writeFileSync(POSTGRES_SCHEMA, text);
  console.log(`postgres-schema: wrote ${path.relative(root, POSTGRES_SCHEMA)}`);
}

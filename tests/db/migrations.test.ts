import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, inject, it } from "vitest";

/**
 * Tables and indexes of a SQLite file, described by structure (columns sorted by name with type,
 * NOT NULL, default and primary key; foreign keys; index definitions), not by the CREATE TABLE text:
 * a column added by ALTER TABLE is the same column as one in a CREATE TABLE. Triggers, which
 * schema.prisma cannot describe, are checked apart (tests/db/audit-trail.test.ts).
 */
function schemaOf(file: string): string[] {
  const database = new Database(file, { readonly: true });
  try {
    const objects = database
      .prepare("SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND type IN ('table', 'index') AND name NOT LIKE '_prisma%' AND name NOT LIKE 'sqlite_%' ORDER BY name")
      .all() as Array<{ type: string; name: string; sql: string }>;
    return objects.map((object) => {
      if (object.type === "index") return `index ${object.name}: ${object.sql.replace(/\s+/g, " ")}`;
      const columns = (database.prepare(`PRAGMA table_info("${object.name}")`).all() as Array<{ name: string; type: string; notnull: number; dflt_value: string | null; pk: number }>)
        .map((column) => `${column.name} ${column.type}${column.notnull ? " NOT NULL" : ""}${column.dflt_value !== null ? ` DEFAULT ${column.dflt_value}` : ""}${column.pk ? " PK" : ""}`)
        .sort();
      const foreignKeys = (database.prepare(`PRAGMA foreign_key_list("${object.name}")`).all() as Array<{ table: string; from: string; to: string; on_delete: string; on_update: string }>)
        .map((key) => `FK ${key.from} -> ${key.table}.${key.to} ON DELETE ${key.on_delete} ON UPDATE ${key.on_update}`)
        .sort();
      return `table ${object.name}: ${[...columns, ...foreignKeys].join(", ")}`;
    });
  } finally {
    database.close();
  }
}

describe("prisma/migrations", () => {
  it("build exactly the database prisma/schema.prisma describes (no drift)", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "skill-console-drift-"));
    const expectedFile = path.join(dir, "expected.db");
    const sql = execFileSync(
      path.resolve("node_modules/.bin/prisma"),
      ["migrate", "diff", "--from-empty", "--to-schema-datamodel", "prisma/schema.prisma", "--script"],
      { env: { ...process.env, DATABASE_URL: `file:${expectedFile}` }, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
    );
    const expected = new Database(expectedFile);
    expected.exec(sql);
    expected.close();
    expect(schemaOf(inject("templateDatabase"))).toEqual(schemaOf(expectedFile));
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, inject, it } from "vitest";

/** Tables and indexes of a SQLite file, as `type name: sql` lines with whitespace normalised. */
function schemaOf(file: string): string[] {
  const database = new Database(file, { readonly: true });
  try {
    const rows = database
      .prepare("SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE '_prisma%' AND name NOT LIKE 'sqlite_%' ORDER BY name")
      .all() as Array<{ type: string; name: string; sql: string }>;
    return rows.map((row) => `${row.type} ${row.name}: ${row.sql.replace(/\s+/g, " ")}`);
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

/**
 * `npm start` regenerates the Prisma clients (SQLite's and PostgreSQL's) when a schema changed since it was generated
 * (a pull without `npm ci`): the build type-checked against the old client and failed.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error -- a plain ESM script without type declarations
import { prismaClientIsStale } from "../../scripts/ensure-install.mjs";

/** A project whose SQLite and PostgreSQL schemas are both `schema`, with clients generated from `generatedFrom` (SQLite's) and `postgresFrom` (null: not generated). */
function project(schema: string, generatedFrom: string | null, postgresFrom: string | null = generatedFrom): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "client-staleness-"));
  fs.mkdirSync(path.join(root, "prisma", "postgresql"), { recursive: true });
  fs.writeFileSync(path.join(root, "prisma", "schema.prisma"), schema);
  fs.writeFileSync(path.join(root, "prisma", "postgresql", "schema.prisma"), schema);
  for (const [client, from] of [["client", generatedFrom], ["../@skill-console/prisma-postgresql", postgresFrom]] as const) {
    if (from === null) continue;
    fs.mkdirSync(path.join(root, "node_modules", ".prisma", client), { recursive: true });
    fs.writeFileSync(path.join(root, "node_modules", ".prisma", client, "index.js"), `const config = {\n  "inlineSchema": ${JSON.stringify(from)},\n  "inlineSchemaHash": "x"\n}\n`);
  }
  return root;
}

describe("prismaClientIsStale", () => {
  const schema = "model Call {\n  id String @id\n  args String\n}\n";
  it("is false for the schema the client was generated from, reformatted as Prisma does", () => {
    expect(prismaClientIsStale(project(schema, "model Call {\n  id   String @id\n  args String\n}"))).toBe(false);
  });
  it("is true after the schema gained a model, and when no client was generated", () => {
    expect(prismaClientIsStale(project(`${schema}model CallPayload {\n  callId String @id\n}\n`, schema))).toBe(true);
    expect(prismaClientIsStale(project(schema, null))).toBe(true);
  });
  it("is true when only the PostgreSQL client is stale or missing", () => {
    expect(prismaClientIsStale(project(schema, schema, `${schema}model CallPayload {\n  callId String @id\n}\n`))).toBe(true);
    expect(prismaClientIsStale(project(schema, schema, null))).toBe(true);
  });
  it("is false for this checkout once npm ci or prisma generate ran", () => {
    expect(prismaClientIsStale()).toBe(false);
  });
});

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    templateDatabase: string;
  }
}

/**
 * Migrates one template SQLite database with the real migrations (`prisma migrate deploy`) so each test
 * file can start from a copy of it instead of migrating again, and builds the worker program
 * (.worker/worker.mjs, scripts/build-bundles.mjs) that tests run as its own process.
 */
export default async function setup(project: TestProject): Promise<() => void> {
  // @ts-expect-error -- a plain ESM script without type declarations
  const { buildWorker } = (await import("../scripts/build-bundles.mjs")) as { buildWorker: () => Promise<unknown> };
  await buildWorker();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "skill-console-template-"));
  const file = path.join(dir, "template.db");
  execFileSync(path.resolve("node_modules/.bin/prisma"), ["migrate", "deploy"], {
    env: { ...process.env, DATABASE_URL: `file:${file}` },
    stdio: "pipe",
  });
  project.provide("templateDatabase", file);
  return () => fs.rmSync(dir, { recursive: true, force: true });
}

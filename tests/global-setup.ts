import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    /** The engine this project's tests run on (vitest.config.ts projects). */
    databaseKind: "sqlite" | "postgresql";
    /** SQLite: the migrated template file. PostgreSQL: the URL of the migrated template database. */
    templateDatabase: string;
  }
}

/** The template database's name in the suite's PostgreSQL cluster; each test file gets a copy (CREATE DATABASE … TEMPLATE). */
export const POSTGRES_TEMPLATE_DATABASE = "console_template";

/** Runs `prisma migrate deploy` against `url` (the real migrations of its provider, prisma.config.ts). */
function migrate(url: string): void {
  execFileSync(path.resolve("node_modules/.bin/prisma"), ["migrate", "deploy"], { env: { ...process.env, DATABASE_URL: url }, stdio: "pipe" });
}

/**
 * Migrates one template database with the real migrations (`prisma migrate deploy`) so each test file
 * can start from a copy of it instead of migrating again, and builds the worker program
 * (.worker/worker.mjs, scripts/build-bundles.mjs) that tests run as its own process, and the console's
 * API (.console/api.mjs) that the multi-replica tests run as replicas. The project
 * named `postgresql` (vitest.config.ts) starts a throwaway PostgreSQL cluster in a temp folder
 * (scripts/postgres-cluster.mjs) and migrates a template database there; the other one a SQLite file.
 */
export default async function setup(project: TestProject): Promise<() => void> {
  // @ts-expect-error -- a plain ESM script without type declarations
  const { buildWorker, buildConsoleApi } = (await import("../scripts/build-bundles.mjs")) as { buildWorker: () => Promise<unknown>; buildConsoleApi: () => Promise<unknown> };
  await buildWorker();
  // The multi-replica tests run the console's API as processes of their own (tests/helpers/replica-server.mjs).
  await buildConsoleApi();
  if (project.name === "postgresql") {
    // @ts-expect-error -- a plain ESM script without type declarations
    const { startPostgresCluster } = (await import("../scripts/postgres-cluster.mjs")) as {
      startPostgresCluster: (options: object) => Promise<{ url: string; stop(): void }>;
    };
    // Two test files at a time, each with its console's pool, its workers and second consoles.
    const cluster = await startPostgresCluster({ database: POSTGRES_TEMPLATE_DATABASE, maxConnections: 500 });
    try {
      migrate(cluster.url);
    } catch (error) {
      cluster.stop();
      throw error;
    }
    project.provide("databaseKind", "postgresql");
    project.provide("templateDatabase", cluster.url);
    return () => cluster.stop();
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "skill-console-template-"));
  const file = path.join(dir, "template.db");
  migrate(`file:${file}`);
  project.provide("databaseKind", "sqlite");
  project.provide("templateDatabase", file);
  return () => fs.rmSync(dir, { recursive: true, force: true });
}

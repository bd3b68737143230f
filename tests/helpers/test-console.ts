import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { inject } from "vitest";
import { closeDbForTests } from "@/lib/server/db";
import { resetConfigForTests } from "@/lib/server/env";
import { failStaleQueuedCalls } from "@/lib/server/requests/fail-stale-queued-calls";
import { reloadRegistry, resetRegistryForTests } from "@/lib/server/skills/registry";
import { forgetTestAdminSession } from "./route-client";
import { TEST_ADMIN } from "./test-people";
import { stopTestWorkers, testWorkers } from "./test-worker";

/** A console set up for one test file: its temp folder, database, allow-list root and native skills path. */
export interface TestConsole {
  dir: string;
  /** The SQLite file (on PostgreSQL: a path where no file is). */
  databaseFile: string;
  /** DATABASE_URL of this console: `file:<databaseFile>`, or a PostgreSQL database of its own. */
  databaseUrl: string;
  root: string;
  /** SKILLS_PATH of this console: native skills go in `<nativeRoot>/<category>/<name>/SKILL.md`. */
  nativeRoot: string;
}

const STARTUP_KEY = Symbol.for("skill-console.startup");

/** Whether this vitest project runs on PostgreSQL (vitest.config.ts projects; tests/global-setup.ts). */
export function onPostgres(): boolean {
  return inject("databaseKind") === "postgresql";
}

let copies = 0;

/**
 * A fresh database for one test console, as a DATABASE_URL: a copy of the migrated template — the
 * SQLite file copied to `file`, or on PostgreSQL a new database made from the template one
 * (CREATE DATABASE … TEMPLATE, milliseconds) in the suite's cluster.
 */
export async function freshTestDatabase(file: string): Promise<string> {
  if (!onPostgres()) {
    fs.copyFileSync(inject("templateDatabase"), file);
    return `file:${file}`;
  }
  const template = new URL(inject("templateDatabase"));
  const name = `test_${process.pid}_${++copies}_${Math.random().toString(36).slice(2, 8)}`;
  const maintenance = new URL(template);
  maintenance.pathname = "/postgres";
  const client = new pg.Client({ connectionString: maintenance.toString() });
  await client.connect();
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        await client.query(`CREATE DATABASE "${name}" TEMPLATE "${template.pathname.slice(1)}"`);
        break;
      } catch (error) {
        // Another test file copying the template at the same moment holds it for an instant.
        if (attempt >= 50 || !/being accessed by other users/.test(String((error as Error).message))) throw error;
        await new Promise((resolve) => setTimeout(resolve, 20 * attempt));
      }
    }
  } finally {
    await client.end();
  }
  const url = new URL(template);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * Points this test file's console at a fresh copy of the migrated template database (freshTestDatabase) and at a new
 * allow-list root folder (empty unless the test writes skills into it), with short limits that keep the
 * suite fast, unsandboxed (SKILL_SANDBOX=none) unless `env` says otherwise. `env` overrides or adds
 * settings. The console's default worker starts on the first request (tests/helpers/test-worker.ts).
 * Call in beforeAll, and `reloadTestConsole()` after writing skills.
 */
export async function setUpTestConsole(env: Record<string, string> = {}): Promise<TestConsole> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "skill-console-test-"));
  // Passable by the sandbox's uid (the worker's snapshots live under it), listable by nobody else.
  fs.chmodSync(dir, 0o711);
  await stopTestWorkers(dir);
  const databaseFile = path.join(dir, "console.db");
  const databaseUrl = await freshTestDatabase(databaseFile);
  const root = path.join(dir, "skills");
  fs.mkdirSync(root);
  const nativeRoot = path.join(dir, "native-skills");
  fs.mkdirSync(nativeRoot);
  Object.assign(process.env, {
    DATABASE_URL: databaseUrl,
    ONGRID_SKILLS_EXTERNAL_DIRS: root,
    SKILLS_PATH: nativeRoot,
    // Never the install's ./data/packs: each test file installs packs into its own folder.
    PACKS_PATH: path.join(dir, "packs"),
    SKILL_KILL_GRACE_MS: "200",
    SKILL_EXIT_DRAIN_MS: "100",
    CALL_EVENT_FLUSH_MS: "50",
    CONSOLE_AUTH_SECRET: "test-secret-of-the-skill-console-suite-0123456789",
    CONSOLE_ADMIN_EMAIL: TEST_ADMIN.email,
    CONSOLE_ADMIN_PASSWORD: TEST_ADMIN.password,
    // Test skills write markers into the test's folders; the sandbox's own tests turn it on.
    SKILL_SANDBOX: "none",
    // Tests rescan when they mean to (reloadTestConsole); the watcher's own tests turn it on.
    SKILLS_WATCH: "false",
    ...env,
  });
  await closeDbForTests();
  resetConfigForTests();
  resetRegistryForTests();
  forgetTestAdminSession();
  (globalThis as Record<symbol, unknown>)[STARTUP_KEY] = undefined;
  return { dir, databaseFile, databaseUrl, root, nativeRoot };
}

/**
 * Writes a native skill into `nativeRoot`: `<nativeRoot>/<category>/<name>/SKILL.md` with `frontmatter`
 * (YAML text without the `---` fences; default `name` and `description` lines) and `body`, plus each
 * file of `files` (path relative to the skill folder, e.g. `scripts/run.sh`; `.sh`/`.py` files are made
 * executable). Returns the skill's folder.
 */
export function writeNativeSkill(
  nativeRoot: string,
  category: string,
  name: string,
  options: { frontmatter?: string; body?: string; files?: Record<string, string> } = {},
): string {
  const skillDir = path.join(nativeRoot, category, name);
  fs.mkdirSync(skillDir, { recursive: true });
  const frontmatter = options.frontmatter ?? `name: ${name}\ndescription: test native skill ${name}`;
  fs.writeFileSync(path.join(skillDir, "SKILL.md"), `---\n${frontmatter}\n---\n${options.body ?? `# ${name}\n`}`);
  for (const [file, content] of Object.entries(options.files ?? {})) {
    const target = path.join(skillDir, file);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, content, { mode: /\.(sh|py)$/.test(file) ? 0o755 : 0o644 });
  }
  return skillDir;
}

/**
 * Writes a subprocess skill into `root`: `<root>/<folder>/skill.json` with the given manifest fields
 * (name, description and entry `run.sh` filled in) and an executable `run.sh` with `script` as its body.
 * Returns the skill's folder.
 */
export function writeSkill(root: string, folder: string, manifest: Record<string, unknown>, script: string): string {
  const skillDir = path.join(root, folder);
  fs.mkdirSync(skillDir, { recursive: true });
  fs.writeFileSync(
    path.join(skillDir, "skill.json"),
    JSON.stringify({ description: `test skill ${folder}`, entry: "run.sh", ...manifest }, null, 2),
  );
  fs.writeFileSync(path.join(skillDir, "run.sh"), `#!/bin/bash\n${script}\n`, { mode: 0o755 });
  return skillDir;
}

/**
 * Rescans this console's skills after a test wrote or changed them (skills written before the first
 * request are picked up by the first scan anyway) the way `POST /api/v1/loader/reload` does: queued
 * calls of changed skills fail, and its workers rescan and report theirs.
 * Returns the loader report.
 */
export async function reloadTestConsole(): ReturnType<typeof reloadRegistry> {
  const report = await reloadRegistry();
  await failStaleQueuedCalls();
  await Promise.all(testWorkers().map((worker) => worker.rescan()));
  return report;
}

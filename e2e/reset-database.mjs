#!/usr/bin/env node
/**
 * Deletes the e2e SQLite database (and its -wal/-shm/-journal siblings) named by `E2E_DATABASE_FILE`,
 * so every Playwright run starts from an empty history. Chained before `node scripts/start.mjs` in
 * playwright.config.ts's webServer command: Playwright starts the webServer before globalSetup runs,
 * so a globalSetup would delete the file under a server that already migrated it.
 */
import fs from "node:fs";

const file = process.env.E2E_DATABASE_FILE;
if (!file) {
  console.error("reset-database: E2E_DATABASE_FILE is not set");
  process.exit(1);
}
for (const suffix of ["", "-wal", "-shm", "-journal"]) fs.rmSync(`${file}${suffix}`, { force: true });
console.log(`reset-database: removed ${file}`);

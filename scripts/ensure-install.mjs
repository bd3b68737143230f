#!/usr/bin/env node
/**
 * Makes the README's two commands work on a fresh clone: when node_modules is missing or older than
 * package-lock.json, runs `npm ci` (which also compiles better-sqlite3 and generates the Prisma client).
 * Used by `npm start` and before `npm test`. Exits non-zero when the install fails.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** True when the installed tree is missing or predates the lock file. */
export function installIsStale() {
  const marker = path.join(root, "node_modules", ".package-lock.json");
  if (!fs.existsSync(marker)) return true;
  return fs.statSync(marker).mtimeMs < fs.statSync(path.join(root, "package-lock.json")).mtimeMs;
}

/** Runs `npm ci` when installIsStale(); exits the process when it fails. */
export function ensureInstall() {
  if (!installIsStale()) return;
  console.log("install: node_modules is missing or stale, running npm ci (a few minutes on a fresh machine)");
  const result = spawnSync("npm", ["ci", "--no-audit", "--no-fund"], { cwd: root, stdio: "inherit" });
  if (result.status !== 0) {
    console.error(`install: npm ci failed (exit ${result.status ?? result.signal})`);
    process.exit(result.status ?? 1);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) ensureInstall();

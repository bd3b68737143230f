#!/usr/bin/env node
/**
 * Makes the README's two commands work on a fresh clone: when node_modules is missing or older than
 * package-lock.json, runs `npm ci` (which also compiles better-sqlite3 and generates the Prisma client);
 * when only prisma/schema.prisma changed since the client was generated, runs `prisma generate`.
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

/**
 * True when the generated Prisma client was made from another prisma/schema.prisma than the one now
 * checked out (a pull that changed the schema, without `npm ci`): the client keeps the schema it was
 * generated from, reformatted, so the two are compared with whitespace collapsed. Unreadable counts as stale.
 */
export function prismaClientIsStale(projectRoot = root) {
  try {
    const generated = fs.readFileSync(path.join(projectRoot, "node_modules", ".prisma", "client", "index.js"), "utf8");
    const match = generated.match(/"inlineSchema": ("(?:[^"\\]|\\.)*")/);
    if (!match) return true;
    const collapse = (text) => text.replace(/\s+/g, " ").trim();
    return collapse(JSON.parse(match[1])) !== collapse(fs.readFileSync(path.join(projectRoot, "prisma", "schema.prisma"), "utf8"));
  } catch {
    return true;
  }
}

/** Runs `npm ci` when installIsStale(), else `prisma generate` when prismaClientIsStale(); exits the process when either fails. */
export function ensureInstall() {
  if (!installIsStale()) {
    if (!prismaClientIsStale()) return;
    console.log("install: the Prisma client predates prisma/schema.prisma, running prisma generate");
    const generated = spawnSync(path.join(root, "node_modules", ".bin", "prisma"), ["generate"], { cwd: root, stdio: "inherit" });
    if (generated.status !== 0) {
      console.error(`install: prisma generate failed (exit ${generated.status ?? generated.signal})`);
      process.exit(generated.status ?? 1);
    }
    return;
  }
  console.log("install: node_modules is missing or stale, running npm ci (a few minutes on a fresh machine)");
  const result = spawnSync("npm", ["ci", "--no-audit", "--no-fund"], { cwd: root, stdio: "inherit" });
  if (result.status !== 0) {
    console.error(`install: npm ci failed (exit ${result.status ?? result.signal})`);
    process.exit(result.status ?? 1);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) ensureInstall();

#!/usr/bin/env node
/**
 * Makes the README's two commands work on a fresh clone: when node_modules is missing or does not hold
 * what package-lock.json names (installIsStale), runs `npm ci` (which also compiles better-sqlite3 and generates the Prisma client);
 * when only a Prisma schema changed since its client was generated, generates both clients again.
 * Used by `npm start` and before `npm test`. Exits non-zero when the install fails.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { generateClients } from "./prisma-generate.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/**
 * True when the installed tree of `projectRoot` is missing, or predates package-lock.json and does not
 * hold what it names. npm records what it installed in node_modules/.package-lock.json: when that is
 * newer than the lock file, the tree is current; when it is older — a checkout or copy that rewrote
 * the lock file with the same content, not only a changed lock — the two are compared (installMatchesLock),
 * so an unchanged lock never costs an `npm ci` (minutes, and a network an offline host lacks).
 */
export function installIsStale(projectRoot = root) {
  const marker = path.join(projectRoot, "node_modules", ".package-lock.json");
  const lock = path.join(projectRoot, "package-lock.json");
  if (!fs.existsSync(marker)) return true;
  if (fs.statSync(marker).mtimeMs >= fs.statSync(lock).mtimeMs) return false;
  return !installMatchesLock(marker, lock);
}

/**
 * True when npm's record of the installed tree (`markerPath`, node_modules/.package-lock.json) holds
 * every package of the lock file (`lockPath`) at the same version and integrity, but the optional ones
 * npm skips on this platform (`@esbuild/android-arm` …), and nothing else. Unreadable counts as no match.
 */
export function installMatchesLock(markerPath, lockPath) {
  try {
    const installed = JSON.parse(fs.readFileSync(markerPath, "utf8")).packages ?? {};
    const locked = JSON.parse(fs.readFileSync(lockPath, "utf8")).packages ?? {};
    for (const [name, entry] of Object.entries(locked)) {
      if (name === "") continue;
      const have = installed[name];
      if (!have) {
        if (entry.optional === true) continue;
        return false;
      }
      if (have.version !== entry.version || have.integrity !== entry.integrity) return false;
    }
    return Object.keys(installed).every((name) => name in locked);
  } catch {
    return false;
  }
}

/** Each generated client (scripts/prisma-generate.mjs) and the schema it is made from, relative to the project. */
const CLIENTS = [
  { client: path.join("node_modules", ".prisma", "client"), schema: path.join("prisma", "schema.prisma") },
  { client: path.join("node_modules", "@skill-console", "prisma-postgresql"), schema: path.join("prisma", "postgresql", "schema.prisma") },
];

/**
 * True when a generated Prisma client (SQLite's or PostgreSQL's) was made from another schema than the
 * one now checked out (a pull that changed the schema, without `npm ci`): the client keeps the schema
 * it was generated from, reformatted, so the two are compared with whitespace collapsed. Unreadable
 * counts as stale.
 */
export function prismaClientIsStale(projectRoot = root) {
  return CLIENTS.some(({ client, schema }) => {
    try {
      const generated = fs.readFileSync(path.join(projectRoot, client, "index.js"), "utf8");
      const match = generated.match(/"inlineSchema": ("(?:[^"\\]|\\.)*")/);
      if (!match) return true;
      const collapse = (text) => text.replace(/\s+/g, " ").trim();
      return collapse(JSON.parse(match[1])) !== collapse(fs.readFileSync(path.join(projectRoot, schema), "utf8"));
    } catch {
      return true;
    }
  });
}

/** Runs `npm ci` when installIsStale(), else `prisma generate` when prismaClientIsStale(); exits the process when either fails. */
export function ensureInstall() {
  if (!installIsStale()) {
    if (!prismaClientIsStale()) return;
    console.log("install: a Prisma client predates its schema, running prisma generate");
    const status = generateClients();
    if (status !== 0) process.exit(status);
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

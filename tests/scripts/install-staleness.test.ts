/**
 * `npm start` and `npm test` run `npm ci` when node_modules does not hold what package-lock.json names
 * (scripts/ensure-install.mjs). A lock file rewritten with the same content (a checkout, a copy that
 * does not keep times) is newer than npm's record of the install, and by time alone looked stale: a
 * helper's clone ran `npm ci` at start, and an offline host could not start at all.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error -- a plain ESM script without type declarations
import { installIsStale } from "../../scripts/ensure-install.mjs";

const LOCKED = {
  "": { name: "console", dependencies: { next: "16.0.0" } },
  "node_modules/next": { version: "16.0.0", integrity: "sha512-next" },
  "node_modules/@esbuild/android-arm": { version: "0.25.0", integrity: "sha512-arm", optional: true },
  "node_modules/@esbuild/linux-x64": { version: "0.25.0", integrity: "sha512-x64", optional: true },
};
const INSTALLED = { "node_modules/next": LOCKED["node_modules/next"], "node_modules/@esbuild/linux-x64": LOCKED["node_modules/@esbuild/linux-x64"] };

/** A project whose lock file holds `locked` and whose install recorded `installed` (null: no node_modules), the lock file `lockNewerByMs` newer than that record. */
function project(locked: object, installed: object | null, lockNewerByMs: number): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "install-staleness-"));
  const lock = path.join(root, "package-lock.json");
  fs.writeFileSync(lock, JSON.stringify({ name: "console", lockfileVersion: 3, packages: locked }));
  if (installed !== null) {
    const marker = path.join(root, "node_modules", ".package-lock.json");
    fs.mkdirSync(path.dirname(marker), { recursive: true });
    fs.writeFileSync(marker, JSON.stringify({ name: "console", lockfileVersion: 3, packages: installed }));
    const at = new Date(Date.now() - 60_000);
    fs.utimesSync(marker, at, at);
    const lockAt = new Date(at.getTime() + lockNewerByMs);
    fs.utimesSync(lock, lockAt, lockAt);
  }
  return root;
}

describe("installIsStale", () => {
  it("is true without node_modules", () => {
    expect(installIsStale(project(LOCKED, null, 0))).toBe(true);
  });

  it("is false when the install is newer than the lock file", () => {
    expect(installIsStale(project(LOCKED, INSTALLED, -1000))).toBe(false);
  });

  it("is false for a lock file rewritten with the same packages (only its time is newer), the other platforms' optional packages skipped", () => {
    expect(installIsStale(project(LOCKED, INSTALLED, 30_000))).toBe(false);
  });

  it("is true for a newer lock file that changes a version or an integrity, adds a package or drops one", () => {
    const changed = (name: string, entry: object) => ({ ...LOCKED, [name]: entry });
    expect(installIsStale(project(changed("node_modules/next", { version: "16.0.1", integrity: "sha512-next" }), INSTALLED, 30_000))).toBe(true);
    expect(installIsStale(project(changed("node_modules/next", { version: "16.0.0", integrity: "sha512-other" }), INSTALLED, 30_000))).toBe(true);
    expect(installIsStale(project(changed("node_modules/zod", { version: "4.0.0", integrity: "sha512-zod" }), INSTALLED, 30_000))).toBe(true);
    const { ["node_modules/next"]: _dropped, ...withoutNext } = LOCKED;
    expect(installIsStale(project(withoutNext, INSTALLED, 30_000))).toBe(true);
  });

  it("is true when npm's record of the install cannot be read", () => {
    const root = project(LOCKED, INSTALLED, 30_000);
    fs.writeFileSync(path.join(root, "node_modules", ".package-lock.json"), "{ not json");
    fs.utimesSync(path.join(root, "node_modules", ".package-lock.json"), new Date(0), new Date(0));
    expect(installIsStale(root)).toBe(true);
  });
});

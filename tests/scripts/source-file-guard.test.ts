/**
 * scripts/source-file-guard.mjs: start.mjs puts tsconfig.json back after `next build` edits it, with its
 * old mtime, so the next start on that build does not find "sources changed" and rebuild the build folder
 * another console serves (the e2e suite's PostgreSQL console rebuilt the SQLite console's build in every CI run).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
// @ts-expect-error -- a plain ESM script without type declarations
import { guardSourceFile } from "../../scripts/source-file-guard.mjs";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "source-guard-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("guardSourceFile", () => {
  it("puts back an edited file's bytes and its modification time, so it is not newer than a build made meanwhile", () => {
    const file = path.join(dir, "tsconfig.json");
    fs.writeFileSync(file, '{"include": ["app"]}\n');
    const past = new Date("2026-01-02T03:04:05.000Z");
    fs.utimesSync(file, past, past);
    const restore = guardSourceFile(file);
    fs.writeFileSync(file, '{"include": ["app", ".next-e2e/types/**/*.ts"]}\n');
    const buildId = path.join(dir, "BUILD_ID");
    fs.writeFileSync(buildId, "build\n");
    expect(restore()).toBe(true);
    expect(fs.readFileSync(file, "utf8")).toBe('{"include": ["app"]}\n');
    expect(fs.statSync(file).mtime.toISOString()).toBe("2026-01-02T03:04:05.000Z");
    expect(fs.statSync(file).mtimeMs).toBeLessThan(fs.statSync(buildId).mtimeMs);
  });

  it("leaves a file nobody edited alone", () => {
    const file = path.join(dir, "untouched.json");
    fs.writeFileSync(file, "{}\n");
    const before = fs.statSync(file).mtimeMs;
    expect(guardSourceFile(file)()).toBe(false);
    expect(fs.statSync(file).mtimeMs).toBe(before);
  });
});

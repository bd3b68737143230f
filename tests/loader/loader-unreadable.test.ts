import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { addSkill, load, makeTempDir } from "./loader-fixtures";

// Tests run as root, for whom chmod 000 changes nothing; so permission errors are injected for any
// path whose last part is "locked", and the loader's reaction to them is checked.
vi.mock("node:fs/promises", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs/promises")>();
  const denied = (syscall: string, target: string) =>
    Object.assign(new Error(`EACCES: permission denied, ${syscall} '${target}'`), { code: "EACCES", syscall, path: target });
  const readdir = (async (target: fs.PathLike, options?: unknown) => {
    if (path.basename(String(target)) === "locked") throw denied("scandir", String(target));
    return (actual.readdir as (p: fs.PathLike, o?: unknown) => Promise<unknown>)(target, options);
  }) as typeof actual.readdir;
  const access = async (target: fs.PathLike, mode?: number) => {
    if (path.basename(String(target)) === "locked") throw denied("access", String(target));
    return actual.access(target, mode);
  };
  const patched = { ...actual, readdir, access };
  return { ...patched, default: patched };
});

// The walk lists folders with readdirSync (walk-manifests.ts): the same refusal there.
vi.mock("node:fs", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs")>();
  const readdirSync = ((target: fs.PathLike, options?: unknown) => {
    if (path.basename(String(target)) === "locked") {
      throw Object.assign(new Error(`EACCES: permission denied, scandir '${String(target)}'`), { code: "EACCES", syscall: "scandir", path: String(target) });
    }
    return (actual.readdirSync as (p: fs.PathLike, o?: unknown) => unknown)(target, options);
  }) as typeof actual.readdirSync;
  const patched = { ...actual, readdirSync };
  return { ...patched, default: patched };
});

describe("subprocess loader: unreadable folders", () => {
  it("logs and skips an unreadable sub-directory and goes on with its siblings", async () => {
    const root = makeTempDir();
    addSkill(root, "a/locked", { name: "hidden" });
    const visible = addSkill(root, "b", { name: "visible" });
    const { report } = await load([root]);
    expect(report.log).toEqual([
      `skill loader: skipping unreadable directory ${path.join(root, "a", "locked")}: permission denied`,
      `skill loader: registered subprocess skill "visible" from ${visible}`,
    ]);
    expect(report.count).toBe(1);
  });

  it("skips an unreadable root with a log line", async () => {
    const root = path.join(makeTempDir(), "locked");
    fs.mkdirSync(root);
    const { report } = await load([root]);
    expect(report.log).toEqual([`skill loader: skipping root ${root}: permission denied`]);
    expect(report.roots).toEqual([{ path: root, status: "skipped", reason: "permission denied" }]);
  });
});

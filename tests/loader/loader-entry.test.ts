import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { addSkill, load, makeTempDir, writeManifest, writeScript } from "./loader-fixtures";

/** Loads one manifest `{name: "s", entry}` at `<root>/s/skill.json` and returns the single log line and the skill. */
async function loadEntry(root: string, entry: string) {
  writeManifest(path.join(root, "s"), { name: "s", description: "d", entry });
  const { report, skills } = await load([root]);
  expect(report.log).toHaveLength(1);
  return { line: report.log[0], skill: skills[0], report };
}

describe("subprocess loader: entry (seed 000 \"Reglas de allow-list\")", () => {
  it("rejects an entry symlink that points outside the root with the seed's exact message", async () => {
    const root = makeTempDir();
    const outside = writeScript(path.join(makeTempDir("outside-"), "escape.sh"));
    fs.mkdirSync(path.join(root, "s"));
    fs.symlinkSync(outside, path.join(root, "s", "run.sh"));
    const { line, report } = await loadEntry(root, "run.sh");
    expect(line).toBe(`skill loader: build "s": entry ${outside} escapes allowlist root ${root}`);
    expect(report.failed).toEqual([
      { path: path.join(root, "s", "skill.json"), root, name: "s", reason: `build: entry ${outside} escapes allowlist root ${root}`, warnings: [] },
    ]);
    expect(report.count).toBe(0);
  });

  it("accepts an entry symlink that stays inside the root and runs its canonical target", async () => {
    const root = makeTempDir();
    const target = writeScript(path.join(root, "bin", "tool.sh"));
    fs.mkdirSync(path.join(root, "s"));
    fs.symlinkSync("../bin/tool.sh", path.join(root, "s", "run.sh"));
    const { line, skill } = await loadEntry(root, "run.sh");
    expect(line).toBe(`skill loader: registered subprocess skill "s" from ${path.join(root, "s", "skill.json")}`);
    expect(skill?.entryPath).toBe(target);
    expect(skill?.workingDirectory).toBe(path.join(root, "s"));
  });

  it("accepts an absolute entry under the same root", async () => {
    const root = makeTempDir();
    const tool = writeScript(path.join(root, "shared", "tool.sh"));
    const { skill } = await loadEntry(root, tool);
    expect(skill?.entryPath).toBe(tool);
  });

  it("accepts an absolute entry written through the configured (symlinked) root path", async () => {
    const real = makeTempDir();
    const configured = path.join(makeTempDir(), "configured-root");
    fs.symlinkSync(real, configured);
    writeScript(path.join(real, "shared", "tool.sh"));
    writeManifest(path.join(real, "s"), { name: "s", description: "d", entry: path.join(configured, "shared", "tool.sh") });
    const { skills, report } = await load([configured]);
    expect(report.failed).toEqual([]);
    expect(skills[0]?.entryPath).toBe(path.join(real, "shared", "tool.sh"));
  });

  it("rejects an absolute entry outside the root, even one that exists and is executable", async () => {
    const root = makeTempDir();
    const { line } = await loadEntry(root, "/bin/sh");
    expect(line).toBe(`skill loader: build "s": entry /bin/sh escapes allowlist root ${root}`);
  });

  it("rejects an absolute entry outside the root that symlinks back inside (absolute entries must lie under the root)", async () => {
    const root = makeTempDir();
    const inside = writeScript(path.join(root, "s", "run.sh"));
    const link = path.join(makeTempDir("outside-"), "link.sh");
    fs.symlinkSync(inside, link);
    const { line } = await loadEntry(root, link);
    expect(line).toBe(`skill loader: build "s": entry ${link} escapes allowlist root ${root}`);
  });

  it("rejects a ../ escape and accepts ../ that stays under the root", async () => {
    const base = makeTempDir();
    const root = path.join(base, "root");
    writeScript(path.join(base, "outside.sh"));
    const escaped = await loadEntry(root, "../../outside.sh");
    expect(escaped.line).toBe(`skill loader: build "s": entry ${path.join(base, "outside.sh")} escapes allowlist root ${root}`);

    const other = makeTempDir();
    const sibling = writeScript(path.join(other, "common", "run.sh"));
    const inside = await loadEntry(other, "../common/run.sh");
    expect(inside.skill?.entryPath).toBe(sibling);
  });

  it("is not fooled by a sibling folder sharing the root's prefix (/tmp/x vs /tmp/x2)", async () => {
    const base = makeTempDir();
    const root = path.join(base, "x");
    const sibling = writeScript(path.join(base, "x2", "run.sh"));
    const absolute = await loadEntry(root, sibling);
    expect(absolute.line).toBe(`skill loader: build "s": entry ${sibling} escapes allowlist root ${root}`);

    const viaLink = path.join(base, "x", "s", "link.sh");
    fs.symlinkSync(sibling, viaLink);
    const linked = await loadEntry(root, "link.sh");
    expect(linked.line).toBe(`skill loader: build "s": entry ${sibling} escapes allowlist root ${root}`);
  });

  it("rejects a nonexistent entry, a dangling symlink and a symlink loop", async () => {
    const root = makeTempDir();
    const missing = await loadEntry(root, "nope.sh");
    expect(missing.line).toBe(`skill loader: build "s": entry ${path.join(root, "s", "nope.sh")} does not exist`);

    fs.symlinkSync(path.join(root, "gone.sh"), path.join(root, "s", "dangling.sh"));
    const dangling = await loadEntry(root, "dangling.sh");
    expect(dangling.line).toBe(`skill loader: build "s": entry ${path.join(root, "s", "dangling.sh")} does not exist`);

    fs.symlinkSync("loop-b.sh", path.join(root, "s", "loop-a.sh"));
    fs.symlinkSync("loop-a.sh", path.join(root, "s", "loop-b.sh"));
    const loop = await loadEntry(root, "loop-a.sh");
    expect(loop.line).toBe(`skill loader: build "s": entry ${path.join(root, "s", "loop-a.sh")} is a symlink loop`);
  });

  it("rejects an entry that is not executable", async () => {
    const root = makeTempDir();
    const script = writeScript(path.join(root, "s", "run.sh"), 0o644);
    const { line } = await loadEntry(root, "run.sh");
    expect(line).toBe(`skill loader: build "s": entry ${script} is not executable`);
  });

  it("accepts an entry executable by its group or others only (as the loader's user may be)", async () => {
    const root = makeTempDir();
    writeScript(path.join(root, "s", "run.sh"), 0o701);
    const { skill } = await loadEntry(root, "run.sh");
    expect(skill?.name).toBe("s");
  });

  it("rejects an entry that is a directory, including the manifest's own folder", async () => {
    const root = makeTempDir();
    fs.mkdirSync(path.join(root, "s", "bin"), { recursive: true });
    const folder = await loadEntry(root, "bin");
    expect(folder.line).toBe(`skill loader: build "s": entry ${path.join(root, "s", "bin")} is not a regular file`);
    const self = await loadEntry(root, ".");
    expect(self.line).toBe(`skill loader: build "s": entry ${path.join(root, "s")} is not a regular file`);
  });

  it("checks the entry before the duplicate rule, as the seed's loop does (parse, build, then register)", async () => {
    const root = makeTempDir();
    const first = addSkill(root, "a", { name: "same" });
    addSkill(root, "b", { name: "same", entry: "missing.sh" });
    const { report } = await load([root]);
    expect(report.log).toEqual([
      `skill loader: registered subprocess skill "same" from ${first}`,
      `skill loader: build "same": entry ${path.join(root, "b", "missing.sh")} does not exist`,
    ]);
  });
});

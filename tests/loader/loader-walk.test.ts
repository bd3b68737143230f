import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { addSkill, load, makeTempDir, writeManifest } from "./loader-fixtures";

const registered = (name: string, manifest: string) => `skill loader: registered subprocess skill "${name}" from ${manifest}`;
const duplicate = (name: string, manifest: string) => `skill loader: skill "${name}" already registered, skipping ${manifest}`;

describe("subprocess loader: the walk (seed 000 \"Comportamiento del loader\")", () => {
  it("walks in lexical byte order, depth-first like filepath.Walk, and the first manifest of a name wins", async () => {
    const root = makeTempDir();
    // Byte order: "B" (0x42) < "a" (0x61) < "skill.json" < "z", a locale sort would put "a" first; inside
    // "a", the folder "nested" comes before the file "skill.json", so it is visited first.
    const inA = addSkill(root, "a", { name: "dup" });
    const inUpperB = addSkill(root, "B", { name: "dup" });
    const nested = addSkill(root, "a/nested", { name: "nested" });
    const atRoot = addSkill(root, ".", { name: "top" });
    const inZ = addSkill(root, "z", { name: "dup" });
    const { report, skills } = await load([root]);
    expect(report.log).toEqual([
      registered("dup", inUpperB),
      registered("nested", nested),
      duplicate("dup", inA),
      registered("top", atRoot),
      duplicate("dup", inZ),
    ]);
    expect(skills.map((skill) => [skill.name, skill.source.path])).toEqual([
      ["dup", inUpperB],
      ["nested", nested],
      ["top", atRoot],
    ]);
    expect(report.skipped).toEqual([
      { path: inA, root, name: "dup", reason: `name already registered from ${inUpperB}`, warnings: [] },
      { path: inZ, root, name: "dup", reason: `name already registered from ${inUpperB}`, warnings: [] },
    ]);
    expect(report.count).toBe(3);
  });

  it("keeps the first root's skill when a later root has the same name, whatever the paths' order", async () => {
    const first = makeTempDir("zz-first-");
    const second = makeTempDir("aa-second-");
    const kept = addSkill(first, "cleaner", { name: "disk_cleaner" });
    const dropped = addSkill(second, "cleaner", { name: "disk_cleaner" });
    const { report, skills } = await load([first, second]);
    expect(report.log).toEqual([registered("disk_cleaner", kept), duplicate("disk_cleaner", dropped)]);
    expect(skills).toHaveLength(1);
    expect(skills[0]?.source).toEqual({ root: first, path: kept });
  });

  it("skips names already taken by other skills without changing the caller's set", async () => {
    const root = makeTempDir();
    const manifest = addSkill(root, "x", { name: "query_promql" });
    const taken = new Set(["query_promql"]);
    const { report } = await load([root], { taken });
    expect(report.log).toEqual([duplicate("query_promql", manifest)]);
    expect(report.skipped).toEqual([{ path: manifest, root, name: "query_promql", reason: "name already taken by another skill", warnings: [] }]);
    expect(report.count).toBe(0);
    expect([...taken]).toEqual(["query_promql"]);
  });

  it("does not follow directory symlinks (outside the root, inside it, or looping)", async () => {
    const root = makeTempDir();
    const outside = makeTempDir("outside-");
    addSkill(outside, "pack", { name: "outsider" });
    const real = addSkill(root, "real", { name: "inside" });
    fs.symlinkSync(path.join(outside, "pack"), path.join(root, "a-link-out"));
    fs.symlinkSync(path.join(root, "real"), path.join(root, "b-link-in"));
    fs.symlinkSync(root, path.join(root, "real", "loop"));
    const { report } = await load([root]);
    expect(report.log).toEqual([registered("inside", real)]);
  });

  it("rejects a skill.json symlink that resolves outside its root, and accepts one that stays inside", async () => {
    const root = makeTempDir();
    const outside = makeTempDir("outside-");
    const target = addSkill(outside, "pack", { name: "evil" });
    fs.mkdirSync(path.join(root, "evil"));
    const link = path.join(root, "evil", "skill.json");
    fs.symlinkSync(target, link);
    const shared = writeManifest(path.join(root, "shared"), { name: "linked", description: "d", entry: "../good/run.sh" });
    addSkill(root, "good", { name: "good" });
    fs.rmSync(path.join(root, "good", "skill.json"));
    fs.symlinkSync(shared, path.join(root, "good", "skill.json"));
    const { report, skills } = await load([root]);
    expect(report.log).toEqual([
      `skill loader: parse ${link}: manifest ${target} escapes allowlist root ${root}`,
      registered("linked", path.join(root, "good", "skill.json")),
      duplicate("linked", shared),
    ]);
    expect(report.failed).toEqual([{ path: link, root, name: null, reason: `parse: manifest ${target} escapes allowlist root ${root}`, warnings: [] }]);
    // The entry is resolved against the folder holding the symlink, not the target's folder.
    expect(skills[0]?.entryPath).toBe(path.join(root, "good", "run.sh"));
    expect(skills[0]?.workingDirectory).toBe(path.join(root, "good"));
  });

  it("reports a skill.json that is a FIFO as not a regular file instead of blocking, and enters a folder named skill.json", async () => {
    const root = makeTempDir();
    fs.mkdirSync(path.join(root, "fifo"));
    const fifo = path.join(root, "fifo", "skill.json");
    execFileSync("mkfifo", [fifo]);
    const inFolder = addSkill(root, "odd/skill.json", { name: "in_folder_named_skill_json" });
    const { report } = await load([root]);
    expect(report.log).toEqual([
      `skill loader: parse ${fifo}: not a regular file`,
      registered("in_folder_named_skill_json", inFolder),
    ]);
  });

  it("never enters .git or node_modules", async () => {
    const root = makeTempDir();
    addSkill(root, ".git/hooks", { name: "in_git" });
    addSkill(root, "pack/node_modules/dep", { name: "in_node_modules" });
    const kept = addSkill(root, "pack", { name: "pack" });
    const { report } = await load([root]);
    expect(report.log).toEqual([registered("pack", kept)]);
  });

  it("stops at the walk limits with a log line instead of running away", async () => {
    const root = makeTempDir();
    const shallow = addSkill(root, "a", { name: "shallow" });
    addSkill(root, "a/b", { name: "too_deep" });
    const deep = await load([root], { walkLimits: { maxDepth: 1, maxEntries: 1000 } });
    expect(deep.report.log).toEqual([
      `skill loader: not descending into ${path.join(root, "a", "b")}: deeper than 1 levels below ${root}`,
      registered("shallow", shallow),
    ]);
    const wide = await load([root], { walkLimits: { maxDepth: 32, maxEntries: 2 } });
    expect(wide.report.log).toEqual([`skill loader: stopped walking ${root} at ${path.join(root, "a", "b")}: more than 2 entries`]);
  });

  it("never lets a broken manifest stop the others, and returns how many it registered", async () => {
    const root = makeTempDir();
    const broken = writeManifest(path.join(root, "1-broken"), "{,}");
    const badEntry = addSkill(root, "2-bad-entry", { name: "bad_entry", entry: "missing.sh" });
    const invalid = addSkill(root, "3-invalid", { name: "Invalid-Name" });
    const good = [addSkill(root, "4-good", { name: "good_one" }), addSkill(root, "5-good", { name: "good_two" })];
    const { report, skills } = await load([root]);
    expect(report.log).toEqual([
      `skill loader: parse ${broken}: Expected property name or '}' in JSON at position 1`,
      `skill loader: build "bad_entry": entry ${path.join(root, "2-bad-entry", "missing.sh")} does not exist`,
      `skill loader: parse ${invalid}: /name must match pattern "^[a-z0-9_]+$"`,
      registered("good_one", good[0]!),
      registered("good_two", good[1]!),
    ]);
    expect(report.failed.map((entry) => [entry.path, entry.name])).toEqual([
      [broken, null],
      [badEntry, "bad_entry"],
      [invalid, "Invalid-Name"],
    ]);
    expect(report.count).toBe(2);
    expect(skills.map((skill) => skill.name)).toEqual(["good_one", "good_two"]);
    expect(report.durationMs).toBeGreaterThanOrEqual(0);
    expect(Date.parse(report.loadedAt)).not.toBeNaN();
  });
});

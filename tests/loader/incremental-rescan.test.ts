import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { listSorted, ScanMemo, type DiskChange } from "@/lib/server/skills/scan-memo";
import { scanSkills } from "@/lib/server/skills/scan-skills";
import { walkManifests } from "@/lib/server/skills/walk-manifests";
import { addSkill, makeTempDir, writeManifest } from "./loader-fixtures";

/** A small deterministic generator (mulberry32), so a failure replays. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function writeNative(skillsPath: string, category: string, folder: string, name: string, extra = ""): string {
  const dir = path.join(skillsPath, category, folder);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "SKILL.md"), `---\nname: ${name}\ndescription: native ${name}${extra}\n---\n# ${name}\n`);
  return dir;
}

/** Every folder and file at and below `target` (what a watcher reports when a tree appears or goes). */
function treeOf(target: string): string[] {
  const found = [target];
  if (fs.lstatSync(target).isDirectory()) for (const name of fs.readdirSync(target)) found.push(...treeOf(path.join(target, name)));
  return found;
}

/** The first of `target` and its ancestors that does not exist yet (what a watcher reports as added when `target` is made with its parents). */
function firstMissing(target: string): string {
  let missing = target;
  while (!fs.existsSync(path.dirname(missing))) missing = path.dirname(missing);
  return missing;
}

/**
 * Moves `from` over `over` (removed first): the same paths now hold other files, and only the two
 * folders are reported, never what lies below them. Returns the changes.
 */
function moveOver(from: string, over: string): DiskChange[] {
  fs.rmSync(over, { recursive: true });
  fs.renameSync(from, over);
  return [
    { path: from, kind: "entries" },
    { path: over, kind: "entries" },
  ];
}

/** The scan without its timings (they differ between two scans of the same disk). */
function comparable(result: Awaited<ReturnType<typeof scanSkills>>) {
  const { loadedAt: _loadedAt, durationMs: _durationMs, ...report } = result.report;
  return { skills: JSON.parse(JSON.stringify(result.skills)), report };
}

describe("incremental rescan (issue 13 point 4: only what changed is read again)", () => {
  it("gives what a full scan gives after every change, over a random run of adds, edits, renames and removals of both kinds", async () => {
    const subprocessRoot = makeTempDir("incremental-sub-");
    const skillsPath = makeTempDir("incremental-native-");
    const settings = { skillRoots: [subprocessRoot], skillsPath, defaultTimeoutSeconds: 30, sandboxAllowPaths: [], sandboxHiddenPaths: [], bundledSkillsDir: "/nonexistent" };
    const next = random(13);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
    const names = ["alpha", "beta", "gamma", "delta", "twin", "twin"];
    let counter = 0;
    const memo = new ScanMemo();
    await scanSkills(settings, () => undefined, memo);

    const subprocessFolders = (): string[] => treeOf(subprocessRoot).filter((entry) => entry !== subprocessRoot && fs.lstatSync(entry).isDirectory());
    const nativeFolders = (): string[] => treeOf(skillsPath).filter((entry) => path.relative(skillsPath, entry).split(path.sep).length === 2 && fs.lstatSync(entry).isDirectory());
    const operations: Array<() => DiskChange[]> = [
      () => {
        // A new subprocess skill, maybe nested in an existing folder under one of a few names (so a
        // folder moved over another may bring skills at the very paths the other had).
        const nested = next() < 0.6 && subprocessFolders().length > 0;
        const folder = nested ? path.join(pick(subprocessFolders()), pick(["a", "b"])) : path.join(subprocessRoot, `s${counter++}`);
        const existed = fs.existsSync(folder);
        addSkill(folder, "", { name: `${pick(names)}_${counter++ % 4}`, description: `made at step ${counter}` });
        return existed ? [{ path: path.join(folder, "skill.json"), kind: "content" }] : treeOf(folder).map((entry) => ({ path: entry, kind: "entries" }));
      },
      () => {
        const manifests = treeOf(subprocessRoot).filter((entry) => path.basename(entry) === "skill.json");
        if (manifests.length === 0) return [];
        const manifest = pick(manifests);
        const roll = next();
        let current: { name?: string } = {};
        try {
          current = JSON.parse(fs.readFileSync(manifest, "utf8")) as { name?: string };
        } catch {
          // A manifest broken by an earlier step.
        }
        // Broken; the same name with another description (and now and then an unknown field, which
        // is a warning); or another name.
        const edited =
          roll < 0.2
            ? "{ broken"
            : roll < 0.6 && current.name
              ? { name: current.name, description: `edited ${counter++}`, entry: "run.sh", ...(next() < 0.5 ? { colour: "blue" } : {}) }
              : { name: `${pick(names)}_${counter++ % 5}`, description: `edited ${counter}`, entry: "run.sh" };
        writeManifest(path.dirname(manifest), edited);
        return [{ path: manifest, kind: "content" }];
      },
      () => {
        const folders = subprocessFolders();
        if (folders.length === 0) return [];
        const folder = pick(folders);
        fs.rmSync(folder, { recursive: true });
        // Only the top folder: the memo must void everything below it itself.
        return [{ path: folder, kind: "entries" }];
      },
      () => {
        const folders = subprocessFolders();
        if (folders.length === 0) return [];
        const from = pick(folders);
        const to = path.join(path.dirname(from), `r${counter++}`);
        fs.renameSync(from, to);
        return [
          { path: from, kind: "entries" },
          { path: to, kind: "entries" },
        ];
      },
      () => {
        // One folder moved over another (moveOver).
        const folders = subprocessFolders();
        if (folders.length < 2) return [];
        const from = pick(folders);
        const over = pick(folders.filter((folder) => !folder.startsWith(from) && !from.startsWith(folder)));
        if (!over) return [];
        return moveOver(from, over);
      },
      () => {
        const folders = nativeFolders();
        if (folders.length < 2) return [];
        const from = pick(folders);
        return moveOver(from, pick(folders.filter((folder) => folder !== from)));
      },
      () => {
        const scripts = treeOf(subprocessRoot).filter((entry) => path.basename(entry) === "run.sh");
        if (scripts.length === 0) return [];
        const script = pick(scripts);
        fs.chmodSync(script, next() < 0.5 ? 0o644 : 0o755);
        return [{ path: script, kind: "content" }];
      },
      () => {
        const target = path.join(skillsPath, pick(["ops", "data", "misc"]), `n${counter++}`);
        const added = firstMissing(target);
        writeNative(skillsPath, path.basename(path.dirname(target)), path.basename(target), `${pick(names)}-${counter % 3}`);
        return treeOf(added).map((entry) => ({ path: entry, kind: "entries" }));
      },
      () => {
        const folders = nativeFolders();
        if (folders.length === 0) return [];
        const folder = pick(folders);
        const file = path.join(folder, "SKILL.md");
        if (next() < 0.5 && fs.existsSync(file)) {
          fs.writeFileSync(file, next() < 0.3 ? "no frontmatter at all\n" : `---\nname: ${pick(names)}\ndescription: rewritten ${counter++}\n---\nbody\n`);
          return [{ path: file, kind: "content" }];
        }
        fs.mkdirSync(path.join(folder, "scripts"), { recursive: true });
        const script = path.join(folder, "scripts", `tool${counter++}.py`);
        fs.writeFileSync(script, "print('hi')\n");
        return [
          { path: path.join(folder, "scripts"), kind: "entries" },
          { path: script, kind: "entries" },
        ];
      },
      () => {
        const folders = nativeFolders();
        if (folders.length === 0) return [];
        const folder = pick(folders);
        // Now and then the whole category.
        const target = next() < 0.2 ? path.dirname(folder) : folder;
        fs.rmSync(target, { recursive: true });
        return [{ path: target, kind: "entries" }];
      },
      () => {
        // A SKILL.md right under a category folder (reported as misplaced), or its removal.
        const category = path.join(skillsPath, pick(["ops", "data"]));
        const added = fs.existsSync(category) ? [] : [category];
        fs.mkdirSync(category, { recursive: true });
        const file = path.join(category, "SKILL.md");
        if (fs.existsSync(file)) fs.rmSync(file);
        else fs.writeFileSync(file, "---\nname: lost\ndescription: misplaced\n---\n");
        return [...added, file].map((entry) => ({ path: entry, kind: "entries" }));
      },
    ];

    // Adds three times as often as the rest, so the trees grow deep and wide enough for moves over them.
    const weighted = [...operations, operations[0]!, operations[0]!, operations[7]!, operations[7]!];
    for (let step = 0; step < 150; step++) {
      const changes = pick(weighted)();
      memo.invalidate(changes);
      const incremental = await scanSkills(settings, () => undefined, memo);
      const full = await scanSkills(settings, () => undefined);
      expect(comparable(incremental), `step ${step}: ${JSON.stringify(changes)}`).toEqual(comparable(full));
    }
  });

  it("reads again what lies below a folder moved over another, when only the two folders are reported", async () => {
    const subprocessRoot = makeTempDir("incremental-sub-");
    const settings = { skillRoots: [subprocessRoot], skillsPath: makeTempDir("incremental-native-"), defaultTimeoutSeconds: 30, sandboxAllowPaths: [], sandboxHiddenPaths: [], bundledSkillsDir: "/nonexistent" };
    addSkill(subprocessRoot, "x/a", { name: "one", description: "from x" });
    addSkill(subprocessRoot, "y/a", { name: "two", description: "from y" });
    addSkill(subprocessRoot, "y/a/deeper", { name: "three", description: "only in y" });
    const memo = new ScanMemo();
    await scanSkills(settings, () => undefined, memo);
    fs.rmSync(path.join(subprocessRoot, "x"), { recursive: true });
    fs.renameSync(path.join(subprocessRoot, "y"), path.join(subprocessRoot, "x"));
    memo.invalidate([
      { path: path.join(subprocessRoot, "y"), kind: "entries" },
      { path: path.join(subprocessRoot, "x"), kind: "entries" },
    ]);
    const after = await scanSkills(settings, () => undefined, memo);
    // In walk order: x/a lists deeper/ before skill.json.
    expect(after.skills.map((skill) => [skill.name, skill.description, path.relative(subprocessRoot, skill.source.path)])).toEqual([
      ["three", "only in y", "x/a/deeper/skill.json"],
      ["two", "from y", "x/a/skill.json"],
    ]);
  });

  it("walks the way a fresh walk does under the depth and entry limits, reusing the walks of folders nothing changed under", async () => {
    const root = makeTempDir("incremental-walk-");
    const next = random(7);
    const memo = new ScanMemo();
    const limits = [
      { maxDepth: 2, maxEntries: 1000 },
      { maxDepth: 32, maxEntries: 25 },
      { maxDepth: 3, maxEntries: 40 },
    ];
    const folders = (): string[] => treeOf(root).filter((entry) => fs.lstatSync(entry).isDirectory());
    for (const limit of limits) {
      memo.forget();
      await walkManifests(root, limit, undefined, (dir) => memo.listing(dir, listSorted), memo.subtrees);
      for (let step = 0; step < 60; step++) {
        let changes: DiskChange[];
        if (next() < 0.7) {
          const folder = path.join(folders()[Math.floor(next() * folders().length)]!, `d${step}`);
          addSkill(folder, "", { name: `w${step}` });
          changes = treeOf(folder).map((entry) => ({ path: entry, kind: "entries" }));
        } else {
          const candidates = folders().filter((folder) => folder !== root);
          if (candidates.length === 0) continue;
          const folder = candidates[Math.floor(next() * candidates.length)]!;
          fs.rmSync(folder, { recursive: true });
          changes = [{ path: folder, kind: "entries" }];
        }
        memo.invalidate(changes);
        const reused = await walkManifests(root, limit, undefined, (dir) => memo.listing(dir, listSorted), memo.subtrees);
        expect(reused, `${JSON.stringify(limit)} step ${step}`).toEqual(await walkManifests(root, limit));
      }
    }
  });

  it("takes a burst of more than 256 changes folder by folder, keeping what the other folders hold", async () => {
    const subprocessRoot = makeTempDir("incremental-burst-");
    for (let i = 0; i < 10; i++) addSkill(subprocessRoot, `s${i}`, { name: `burst_${i}` });
    const settings = { skillRoots: [subprocessRoot], skillsPath: makeTempDir("incremental-native-"), defaultTimeoutSeconds: 30, sandboxAllowPaths: [], sandboxHiddenPaths: [], bundledSkillsDir: "/nonexistent" };
    const memo = new ScanMemo();
    const before = await scanSkills(settings, () => undefined, memo);
    const changes: DiskChange[] = [];
    for (let i = 0; i < 300; i++) {
      const file = path.join(subprocessRoot, `s${i % 3}`, `data-${i}.txt`);
      fs.writeFileSync(file, String(i));
      changes.push({ path: file, kind: "entries" });
    }
    memo.invalidate(changes);
    expect(memo.size().examined).toBe(7);
    const after = await scanSkills(settings, () => undefined, memo);
    const read = after.skills.filter((skill, index) => skill !== before.skills[index]).map((skill) => skill.name);
    expect(read).toEqual(["burst_0", "burst_1", "burst_2"]);
  });

  it("reads only the skill that changed: the others are the very objects of the scan before", async () => {
    const subprocessRoot = makeTempDir("incremental-sub-");
    const skillsPath = makeTempDir("incremental-native-");
    for (let i = 0; i < 20; i++) addSkill(subprocessRoot, `cat/s${i}`, { name: `skill_${i}` });
    for (let i = 0; i < 5; i++) writeNative(skillsPath, "ops", `n${i}`, `native-${i}`);
    const settings = { skillRoots: [subprocessRoot], skillsPath, defaultTimeoutSeconds: 30, sandboxAllowPaths: [], sandboxHiddenPaths: [], bundledSkillsDir: "/nonexistent" };
    const memo = new ScanMemo();
    const before = await scanSkills(settings, () => undefined, memo);
    const edited = writeManifest(path.join(subprocessRoot, "cat", "s7"), { name: "skill_7", description: "edited", entry: "run.sh" });
    const nativeEdited = writeNative(skillsPath, "ops", "n2", "native-2", " (edited)");
    memo.invalidate([
      { path: edited, kind: "content" },
      { path: path.join(nativeEdited, "SKILL.md"), kind: "content" },
    ]);
    const after = await scanSkills(settings, () => undefined, memo);
    const changed = after.skills.filter((skill, index) => skill !== before.skills[index]).map((skill) => skill.name);
    expect(changed).toEqual(["skill_7", "native-2"]);
    expect(after.skills.find((skill) => skill.name === "skill_7")?.description).toBe("edited");
    expect(after.skills.find((skill) => skill.name === "native-2")?.description).toBe("native native-2 (edited)");
    // Without a report of the change, the memo keeps serving what it read (a full scan forgets it first).
    writeManifest(path.join(subprocessRoot, "cat", "s3"), { name: "skill_3", description: "unreported", entry: "run.sh" });
    const unreported = await scanSkills(settings, () => undefined, memo);
    expect(unreported.skills.find((skill) => skill.name === "skill_3")?.description).toBe("skill in cat/s3");
    memo.forget();
    const fresh = await scanSkills(settings, () => undefined, memo);
    expect(fresh.skills.find((skill) => skill.name === "skill_3")?.description).toBe("unreported");
  });
});

import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureConsoleStarted } from "@/lib/server/console-startup";
import { getRegistry, loaderHistory } from "@/lib/server/skills/registry";
import { stopWatchingSkills, watchStatus } from "@/lib/server/skills/watch-skills";
import { setUpTestConsole, writeNativeSkill, writeSkill, type TestConsole } from "../helpers/test-console";

let testConsole: TestConsole;

/** Polls `check` every 50 ms until it returns a value other than undefined, for up to `ms`; throws with `what` past it. */
async function eventually<T>(what: string, check: () => Promise<T | undefined> | T | undefined, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`not seen within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  testConsole = await setUpTestConsole({ SKILLS_WATCH: "true" });
  writeSkill(testConsole.root, "first", { name: "first", description: "there from the start" }, 'echo "{}"');
  await ensureConsoleStarted();
  await eventually("the watch is set up", () => (watchStatus().status === "watching" ? true : undefined));
});

afterAll(async () => {
  await stopWatchingSkills();
});

describe("the console follows its skill folders on disk without a Rescan (issue 13 point 4)", () => {
  it("says what it watches", () => {
    // The roots, the skills path, and the installed packs (one more root: DESIGN.md "Skill packs").
    expect(watchStatus()).toEqual({ status: "watching", paths: [testConsole.root, testConsole.nativeRoot, path.join(testConsole.dir, "packs", "installed")].sort(), reason: null });
  });

  it("registers a skill folder added on disk, and the history names it", async () => {
    writeSkill(testConsole.root, "added", { name: "added_later", description: "written after start-up" }, 'echo "{}"');
    const skill = await eventually("added_later registered", async () => (await getRegistry()).get("added_later"));
    expect(skill.description).toBe("written after start-up");
    const scan = loaderHistory().find((entry) => entry.added.includes("added_later"));
    expect(scan).toMatchObject({ trigger: "watch", addedCount: 1, removedCount: 0, changedCount: 0, count: 2 });
    expect(scan?.paths).toContain(path.join(testConsole.root, "added"));
  });

  it("follows an edit of a manifest and of a SKILL.md, reading only what changed", async () => {
    const before = await getRegistry();
    const first = before.get("first");
    fs.writeFileSync(path.join(testConsole.root, "added", "skill.json"), JSON.stringify({ name: "added_later", description: "edited in place", entry: "run.sh" }));
    const edited = await eventually("the edit seen", async () => ((await getRegistry()).get("added_later")?.description === "edited in place" ? true : undefined));
    expect(edited).toBe(true);
    // The untouched skill is the very object of the scan before: it was not read again.
    const after = await getRegistry();
    expect(after.get("first")).toBe(first);
    expect(loaderHistory()[0]).toMatchObject({ trigger: "watch", changed: ["added_later"], changedCount: 1, addedCount: 0, removedCount: 0 });

    writeNativeSkill(testConsole.nativeRoot, "ops", "native-one", { frontmatter: "name: native-one\ndescription: a native skill" });
    await eventually("native-one registered", async () => (await getRegistry()).get("native-one"));
    fs.writeFileSync(path.join(testConsole.nativeRoot, "ops", "native-one", "SKILL.md"), "---\nname: native-one\ndescription: rewritten\n---\nbody\n");
    await eventually("the SKILL.md edit seen", async () => ((await getRegistry()).get("native-one")?.description === "rewritten" ? true : undefined));
  });

  it("drops a skill whose folder is removed, and reports one broken on disk with the reason", async () => {
    fs.rmSync(path.join(testConsole.root, "added"), { recursive: true });
    await eventually("added_later gone", async () => ((await getRegistry()).get("added_later") === undefined ? true : undefined));
    expect(loaderHistory()[0]).toMatchObject({ trigger: "watch", removed: ["added_later"], removedCount: 1 });

    fs.writeFileSync(path.join(testConsole.root, "first", "skill.json"), "{ not json");
    const report = await eventually("first failed", async () => {
      const current = (await getRegistry()).report();
      return current.failed.some((entry) => entry.path === path.join(testConsole.root, "first", "skill.json")) ? current : undefined;
    });
    expect((await getRegistry()).get("first")).toBeUndefined();
    expect(report.log.some((line) => line.startsWith(`skill loader: parse ${path.join(testConsole.root, "first", "skill.json")}:`))).toBe(true);
  });

  it("sees a manifest renamed over the old one with the old mtime, and a chmod of the entry", async () => {
    writeSkill(testConsole.root, "flip", { name: "flip", description: "safe at first" }, 'echo "{}"');
    await eventually("flip registered", async () => (await getRegistry()).get("flip"));
    const manifest = path.join(testConsole.root, "flip", "skill.json");
    // Made outside the watched folders, its mtime set to the old file's, then renamed over it.
    const elsewhere = path.join(testConsole.dir, "flip.json");
    fs.writeFileSync(elsewhere, JSON.stringify({ name: "flip", description: "made dangerous", class: "dangerous", entry: "run.sh" }));
    const { atime, mtime } = fs.statSync(manifest);
    fs.utimesSync(elsewhere, atime, mtime);
    fs.renameSync(elsewhere, manifest);
    await eventually("flip dangerous", async () => ((await getRegistry()).get("flip")?.class === "dangerous" ? true : undefined));

    fs.chmodSync(path.join(testConsole.root, "flip", "run.sh"), 0o644);
    await eventually("flip failed: entry not executable", async () => ((await getRegistry()).get("flip") === undefined ? true : undefined));
    expect((await getRegistry()).report().failed.find((entry) => entry.name === "flip")?.reason).toBe(`build: entry ${path.join(testConsole.root, "flip", "run.sh")} is not executable`);
  });

  it("keeps watching a folder removed and made again at once (the new folder is another inode)", async () => {
    const folder = path.join(testConsole.root, "phoenix");
    writeSkill(testConsole.root, "phoenix", { name: "phoenix", description: "first life" }, 'echo "{}"');
    await eventually("phoenix registered", async () => (await getRegistry()).get("phoenix"));
    fs.rmSync(folder, { recursive: true });
    writeSkill(testConsole.root, "phoenix", { name: "phoenix", description: "second life" }, 'echo "{}"');
    await eventually("second life seen", async () => ((await getRegistry()).get("phoenix")?.description === "second life" ? true : undefined));
    // Edits inside the new folder are still seen.
    fs.writeFileSync(path.join(folder, "skill.json"), JSON.stringify({ name: "phoenix", description: "edited after", entry: "run.sh" }));
    await eventually("the edit in the new folder seen", async () => ((await getRegistry()).get("phoenix")?.description === "edited after" ? true : undefined));
    fs.mkdirSync(path.join(folder, "deeper"));
    writeSkill(folder, "deeper", { name: "phoenix_deeper" }, 'echo "{}"');
    await eventually("a skill in a new folder of the new folder", async () => (await getRegistry()).get("phoenix_deeper"));
  });

  it("reads every root again after a flood of events (the kernel may have dropped some), and watches what was made meanwhile", async () => {
    const noise = path.join(testConsole.root, "noise");
    fs.mkdirSync(noise);
    await eventually("the noise folder seen", () => (loaderHistory()[0]?.paths.includes(noise) ? true : undefined));
    // 3,000 events in well under a second, in a watched folder.
    for (let i = 0; i < 3_000; i++) fs.writeFileSync(path.join(noise, `n${i}`), "");
    writeSkill(testConsole.root, "floodborn", { name: "floodborn", description: "made during a flood" }, 'echo "{}"');
    await eventually("floodborn registered", async () => (await getRegistry()).get("floodborn"));
    await eventually("a scan of whole roots after the flood", () => (loaderHistory().some((scan) => scan.trigger === "watch" && scan.paths.includes(testConsole.root) && scan.paths.includes(testConsole.nativeRoot)) ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const manifest = path.join(testConsole.root, "floodborn", "skill.json");
    fs.writeFileSync(manifest, JSON.stringify({ name: "floodborn", description: "edited after the flood", entry: "run.sh" }));
    await eventually("the edit after the flood seen", async () => ((await getRegistry()).get("floodborn")?.description === "edited after the flood" ? true : undefined));
    expect(loaderHistory()[0]).toMatchObject({ trigger: "watch", paths: [manifest], changed: ["floodborn"] });
    fs.rmSync(noise, { recursive: true });
  });

  it("follows a root removed and made again (rm -rf root && git clone …), which sends no event of its own", async () => {
    fs.rmSync(testConsole.root, { recursive: true });
    await eventually("every skill of the root gone", async () => ((await getRegistry()).get("first") === undefined && (await getRegistry()).report().roots.some((root) => root.status === "skipped") ? true : undefined));
    await eventually("the removed root no longer watched", () => (watchStatus().paths.includes(testConsole.root) ? undefined : true));
    fs.mkdirSync(testConsole.root);
    writeSkill(testConsole.root, "cloned", { name: "cloned", description: "in the new root" }, 'echo "{}"');
    const skill = await eventually("cloned registered", async () => (await getRegistry()).get("cloned"));
    expect(skill.description).toBe("in the new root");
    // Watched again within a check (ROOT_CHECK_MS).
    await eventually("the new root watched", () => (watchStatus().paths.includes(testConsole.root) ? true : undefined));
    // And the new root is watched below: an edit in it is seen as that file's change (not only through
    // the root's own check), once the root's own reports have settled.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const manifest = path.join(testConsole.root, "cloned", "skill.json");
    fs.writeFileSync(manifest, JSON.stringify({ name: "cloned", description: "edited in the new root", entry: "run.sh" }));
    await eventually("the edit in the new root seen", async () => ((await getRegistry()).get("cloned")?.description === "edited in the new root" ? true : undefined));
    expect(loaderHistory()[0]).toMatchObject({ trigger: "watch", paths: [manifest], changed: ["cloned"] });

    // Removed and made again at once: the new root often has the old one's inode number.
    fs.rmSync(testConsole.root, { recursive: true });
    fs.mkdirSync(testConsole.root);
    writeSkill(testConsole.root, "again", { name: "again", description: "in the third root" }, 'echo "{}"');
    await eventually("again registered, cloned gone", async () => ((await getRegistry()).get("again") && !(await getRegistry()).get("cloned") ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const again = path.join(testConsole.root, "again", "skill.json");
    fs.writeFileSync(again, JSON.stringify({ name: "again", description: "edited in the third root", entry: "run.sh" }));
    await eventually("the edit in the third root seen", async () => ((await getRegistry()).get("again")?.description === "edited in the third root" ? true : undefined));
    expect(loaderHistory()[0]).toMatchObject({ trigger: "watch", paths: [again], changed: ["again"] });
  });
});

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FolderWatch, type FolderEvent } from "./folder-watch";

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "folder-watch-")));
  made.push(dir);
  return dir;
}

describe("FolderWatch", () => {
  it("watches no folder reached through a symbolic link, even when the last step is a real folder", async () => {
    const root = tempDir();
    const outside = tempDir();
    fs.mkdirSync(path.join(outside, "sub", "deep"), { recursive: true });
    fs.mkdirSync(path.join(root, "inside"));
    fs.symlinkSync(outside, path.join(root, "link"));
    const events: FolderEvent[] = [];
    const watch = new FolderWatch((event) => events.push(event), () => undefined);
    await watch.watchTree(root);
    // What a walk that listed `link` as a folder before it became a link would ask for.
    await watch.watchTree(path.join(root, "link", "sub"));
    expect(watch.folders().sort()).toEqual([root, path.join(root, "inside")]);
    watch.close();
  });

  it("unwatches a removed subtree of a thousand folders, and watches a tree made in its place", async () => {
    const root = tempDir();
    for (let i = 0; i < 1000; i++) fs.mkdirSync(path.join(root, "big", `d${i}`), { recursive: true });
    const watch = new FolderWatch(() => undefined, () => undefined);
    await watch.watchTree(root);
    expect(watch.folders()).toHaveLength(1002);
    watch.unwatchTree(path.join(root, "big"));
    expect(watch.folders()).toEqual([root]);
    await watch.watchTree(path.join(root, "big"));
    expect(watch.folders()).toHaveLength(1002);
    watch.close();
  });
});

/**
 * A Rescan reads every skill.json again but checks only bytes it has not checked before (the result of
 * checkManifest is a pure function of the bytes): the same bytes give the same (frozen) check, other
 * bytes a new one, and a failure is remembered with its message as well. Real files.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readManifest } from "./read-manifest";
import type { FoundManifest } from "./walk-manifests";

const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "read-manifest-")));

function manifestAt(folder: string, text: string): FoundManifest {
  fs.mkdirSync(path.join(root, folder), { recursive: true });
  fs.writeFileSync(path.join(root, folder, "skill.json"), text);
  return { kind: "file", path: path.join(root, folder, "skill.json") };
}

describe("readManifest", () => {
  it("checks the same bytes once: a rescan gets the very same frozen manifest, other bytes a new one", async () => {
    const text = JSON.stringify({ name: "cached_once", description: "d", entry: "run.sh", schema: { type: "object", properties: { n: { type: "integer" } } } });
    const first = await readManifest(manifestAt("a", text), root);
    const again = await readManifest(manifestAt("a", text), root);
    const elsewhere = await readManifest(manifestAt("b", text), root);
    if (!first.ok || !again.ok || !elsewhere.ok) throw new Error("expected valid manifests");
    expect(again.manifest).toBe(first.manifest);
    expect(elsewhere.manifest).toBe(first.manifest);
    // Each result names the file it read.
    expect([first.source.file, elsewhere.source.file]).toEqual([path.join(root, "a", "skill.json"), path.join(root, "b", "skill.json")]);
    expect(Object.isFrozen(first.manifest.schema)).toBe(true);
    expect(() => {
      (first.manifest as { name: string }).name = "changed";
    }).toThrow(TypeError);
    const changed = await readManifest(manifestAt("a", text.replace('"d"', '"e"')), root);
    if (!changed.ok) throw new Error("expected a valid manifest");
    expect(changed.manifest).not.toBe(first.manifest);
    expect(changed.manifest.description).toBe("e");
  });

  it("remembers a failure with its message", async () => {
    const broken = await readManifest(manifestAt("c", '{"name": "x",'), root);
    const brokenAgain = await readManifest(manifestAt("d", '{"name": "x",'), root);
    expect(broken.ok).toBe(false);
    expect(brokenAgain).toEqual(broken);
    const invalid = await readManifest(manifestAt("e", JSON.stringify({ name: "Bad Name", description: "d", entry: "run.sh" })), root);
    expect(invalid).toEqual({ ok: false, message: '/name must match pattern "^[a-z0-9_]+$"', name: "Bad Name" });
  });
});

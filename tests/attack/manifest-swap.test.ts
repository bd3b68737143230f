/**
 * A hostile skill author who can write inside an allow-list root races the loader: between the walk
 * (which saw a regular `skill.json`) and the read, the file is replaced by a symlink to a file outside
 * the root that only the console's user may read. The loader must not read it: the parse error would
 * quote its first bytes into the loader report, served over HTTP (`GET /api/v1/loader`).
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readManifest } from "@/lib/server/skills/read-manifest";
import { makeTempDir } from "../loader/loader-fixtures";

describe("readManifest and a skill.json swapped after the walk", () => {
  it("refuses a manifest the walk saw as a regular file that is now a symlink out of the root", async () => {
    const root = makeTempDir("manifest-swap-root-");
    const outside = makeTempDir("manifest-swap-outside-");
    const secret = path.join(outside, "secret");
    fs.writeFileSync(secret, "root:$6$TOPSECRETHASH:19000:0:99999:7:::\n", { mode: 0o600 });
    const dir = path.join(root, "pack");
    fs.mkdirSync(dir);
    const manifest = path.join(dir, "skill.json");
    fs.symlinkSync(secret, manifest); // the swap, done after the walk reported a regular file
    const result = await readManifest({ path: manifest, kind: "file" }, root);
    expect(result.ok).toBe(false);
    const message = result.ok ? "" : result.message;
    expect(message).not.toMatch(/root:|TOPSECRET/);
    expect(message).toMatch(/escapes allowlist root|symlink|not a regular file/);
  });

  it("refuses a symlinked manifest whose folder was swapped for a symlink out of the root after realpath", async () => {
    const root = makeTempDir("manifest-swap-root-");
    const outside = makeTempDir("manifest-swap-outside-");
    fs.writeFileSync(path.join(outside, "skill.json"), "SECRET-CONTENT not json");
    // Inside the root: pack/skill.json -> ../real/skill.json, a legitimate in-root symlink...
    fs.mkdirSync(path.join(root, "pack"));
    fs.mkdirSync(path.join(root, "real"));
    fs.writeFileSync(path.join(root, "real", "skill.json"), "{}");
    fs.symlinkSync("../real/skill.json", path.join(root, "pack", "skill.json"));
    // ...until `real` is swapped for a symlink to a folder outside the root.
    fs.rmSync(path.join(root, "real"), { recursive: true });
    fs.symlinkSync(outside, path.join(root, "real"));
    const result = await readManifest({ path: path.join(root, "pack", "skill.json"), kind: "symlink" }, root);
    expect(result.ok).toBe(false);
    expect(result.ok ? "" : result.message).not.toMatch(/SECRET/);
  });
});

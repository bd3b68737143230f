import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll } from "vitest";
import { loadSubprocessSkills, type SubprocessLoaderOptions } from "@/lib/server/skills/subprocess-loader";

const created: string[] = [];

/** A fresh, realpath'd temporary folder, removed when the test file ends. */
export function makeTempDir(prefix = "loader-"): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  created.push(dir);
  return dir;
}

afterAll(() => {
  for (const dir of created) fs.rmSync(dir, { recursive: true, force: true });
});

/** Writes `<dir>/skill.json` (creating dir): an object as JSON, a string verbatim. Returns the manifest path. */
export function writeManifest(dir: string, manifest: Record<string, unknown> | string): string {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, "skill.json");
  fs.writeFileSync(file, typeof manifest === "string" ? manifest : JSON.stringify(manifest, null, 2));
  return file;
}

/** Writes a small bash script (mode 0755 unless told) and returns its path. */
export function writeScript(file: string, mode = 0o755): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, '#!/bin/bash\necho "{}"\n', { mode });
  fs.chmodSync(file, mode);
  return file;
}

/**
 * Writes a complete skill folder `<root>/<folder>`: skill.json (description and entry "run.sh"
 * filled in, `manifest` on top) and an executable run.sh. Returns the manifest path.
 */
export function addSkill(root: string, folder: string, manifest: Record<string, unknown>): string {
  const dir = path.join(root, folder);
  writeScript(path.join(dir, "run.sh"));
  return writeManifest(dir, { description: `skill in ${folder}`, entry: "run.sh", ...manifest });
}

/** Runs the loader with a 30 s default timeout and a silent log; `opts` overrides. */
export function load(roots: string[], opts: Partial<SubprocessLoaderOptions> = {}) {
  return loadSubprocessSkills(roots, { defaultTimeoutSeconds: 30, log: () => undefined, ...opts });
}

/**
 * Level 3 (`GET /api/v1/skills/{name}/resources/{path…}`, skill_read_resource) against a skill folder
 * changing under it, found by the attack review of level 3 serving any file of the folder: a folder
 * swapped for a symlink to the skill's hidden `.git/` between the path checks and the open served
 * `.git/secret.txt` (8 of 202 requests); what was opened is now checked by its descriptor for hidden
 * segments too. And a hard link (to a file outside the folder, or to SKILL.md) is never served or
 * listed. Real folders, a real renameat2(RENAME_EXCHANGE) swapper in a child process.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import * as resourceRoute from "@/app/api/v1/skills/[name]/resources/[...path]/route";
import { getRegistry } from "@/lib/server/skills/registry";
import { invoke } from "../helpers/route-client";
import { reloadTestConsole, setUpTestConsole, writeNativeSkill, type TestConsole } from "../helpers/test-console";

let testConsole: TestConsole;
let skillDir: string;

/** Exchanges two paths atomically, over and over, until killed. */
const SWAPPER = `
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
a, b = sys.argv[1].encode(), sys.argv[2].encode()
while True:
    libc.renameat2(-100, a, -100, b, 2)
`;

beforeAll(async () => {
  testConsole = await setUpTestConsole();
  skillDir = writeNativeSkill(testConsole.nativeRoot, "ops", "race", {
    files: { "references/sub/secret.txt": "inside\n", ".git/secret.txt": "HIDDEN GIT SECRET\n", "references/plain.md": "plain\n" },
  });
  fs.symlinkSync("../.git", path.join(skillDir, "references", "sub.l"));
  const outside = path.join(testConsole.dir, "outside-secret.txt");
  fs.writeFileSync(outside, "OUTSIDE SECRET\n");
  fs.linkSync(outside, path.join(skillDir, "references", "hard-outside.txt"));
  fs.linkSync(path.join(skillDir, "SKILL.md"), path.join(skillDir, "references", "hard-skill.md"));
  await reloadTestConsole();
});

function get(segments: string[]) {
  return invoke(resourceRoute.GET, `/api/v1/skills/race/resources/${segments.map(encodeURIComponent).join("/")}`, {
    params: { name: "race", path: segments } as unknown as Record<string, string>,
  });
}

describe("level 3 and a folder that changes under it", () => {
  it("never serves a hidden file through a folder swapped for a symlink to it", { timeout: 120_000 }, async () => {
    expect((await get([".git", "secret.txt"])).status).toBe(404);
    const script = path.join(testConsole.dir, "swap.py");
    fs.writeFileSync(script, SWAPPER);
    const child = spawn("python3", [script, path.join(skillDir, "references", "sub"), path.join(skillDir, "references", "sub.l")], { stdio: "ignore" });
    const outcomes: Record<string, number> = {};
    try {
      for (let i = 0; i < 800; i += 1) {
        const response = await get(["references", "sub", "secret.txt"]);
        const key = response.status === 200 ? await response.text() : String(response.status);
        outcomes[key] = (outcomes[key] ?? 0) + 1;
      }
    } finally {
      child.kill("SIGKILL");
    }
    expect(outcomes["HIDDEN GIT SECRET\n"] ?? 0).toBe(0);
    // The race was run: the file was served from its real place some of the time.
    expect(outcomes["inside\n"] ?? 0).toBeGreaterThan(0);
  });

  it("never serves or lists a hard-linked file, to a file outside the folder or to SKILL.md", async () => {
    for (const file of ["hard-outside.txt", "hard-skill.md"]) expect((await get(["references", file])).status, file).toBe(404);
    const skill = (await getRegistry()).get("race");
    expect(skill?.kind === "native" ? skill.resources.references : null).toEqual(["references/plain.md", "references/sub/secret.txt"]);
    expect(skill?.warnings.filter((warning) => warning.includes("hard-linked"))).toEqual([
      "left out references/hard-outside.txt: a hard-linked file (it may be another file's content, outside the folder), never served",
      "left out references/hard-skill.md: a hard-linked file (it may be another file's content, outside the folder), never served",
    ]);
  });
});

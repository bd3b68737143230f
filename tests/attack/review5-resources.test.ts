import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import * as resourceRoute from "@/app/api/v1/skills/[name]/resources/[...path]/route";
import * as skillRoute from "@/app/api/v1/skills/[name]/route";
import { invoke } from "../helpers/route-client";
import { reloadTestConsole, setUpTestConsole, writeNativeSkill, type TestConsole } from "../helpers/test-console";
import { createPerson, type TestPerson } from "../helpers/test-people";
import { createToken } from "../api/approvals-fixtures";
import { callToolExpecting, createPersona } from "../tools/tools-fixtures";

/** How long a swap race goes on after its first 120 reads while fewer than 5 were served, in ms. */
const RACE_MS = 15_000;

// Review 5 (attacker): level-3 resource reads (GET /api/v1/skills/{name}/resources/{path…} and
// skill_read_resource) must never read outside the skill's resource folders, never block on special
// files, never read a huge file into memory, and must honour a token's persona like the tools do.

let testConsole: TestConsole;
let skillDir: string;
let operator: TestPerson;
const SECRET = "secret outside the skill\n";

beforeAll(async () => {
  testConsole = await setUpTestConsole({ SKILL_RESOURCE_LIMIT_BYTES: "4096" });
  const outsideDir = path.join(testConsole.dir, "outside");
  fs.mkdirSync(outsideDir);
  fs.writeFileSync(path.join(outsideDir, "secret.txt"), SECRET);
  skillDir = writeNativeSkill(testConsole.nativeRoot, "analysis", "res-attack", {
    frontmatter: "name: res-attack\ndescription: resource attack target\nclass: safe",
    files: { "references/guide.md": "guide\n", "scripts/ok.sh": "#!/bin/sh\necho ok\n" },
  });
  // Special files reached through the folder itself or through symlinks.
  execFileSync("mkfifo", [path.join(skillDir, "references", "fifo.md")]);
  fs.symlinkSync("/dev/zero", path.join(skillDir, "references", "zero.md"));
  fs.symlinkSync("/dev/stdin", path.join(skillDir, "references", "stdin.md"));
  fs.symlinkSync("/proc/self/environ", path.join(skillDir, "references", "environ.md"));
  // A 10 GB sparse file: must be described, never read.
  const sparse = path.join(skillDir, "assets", "huge.bin");
  fs.mkdirSync(path.dirname(sparse), { recursive: true });
  fs.closeSync(fs.openSync(sparse, "w"));
  fs.truncateSync(sparse, 10 * 1024 * 1024 * 1024);
  // A resource folder that is itself a symlink to a folder outside the skill.
  fs.symlinkSync(outsideDir, path.join(skillDir, "templates"));
  // A second skill whose scripts/ folder is the file system root.
  const rooted = writeNativeSkill(testConsole.nativeRoot, "analysis", "rooted", { frontmatter: "name: rooted\ndescription: scripts is /\nclass: safe" });
  fs.symlinkSync("/", path.join(rooted, "scripts"));
  // A skill in a category the restricted persona does not load.
  writeNativeSkill(testConsole.nativeRoot, "secret-ops", "hidden-skill", {
    frontmatter: "name: hidden-skill\ndescription: only for the ops persona\nclass: safe",
    body: "# Hidden instructions\n",
    files: { "references/runbook.md": "hidden runbook\n" },
  });
  await reloadTestConsole();
  operator = await createPerson("operator");
  await createPersona("analyst", "read-only", { allow: ["*"] }, ["analysis"]);
});

function get(name: string, segments: string[], query = "", as?: Record<string, string>) {
  return invoke(resourceRoute.GET, `/api/v1/skills/${name}/resources/${segments.map(encodeURIComponent).join("/")}${query}`, {
    params: { name, path: segments } as unknown as Record<string, string>,
    ...(as ? { as } : {}),
  });
}

async function codeOf(response: Response): Promise<string> {
  return ((await response.json()) as { error: { code: string } }).error.code;
}

describe("special files never block or stream", () => {
  it("a FIFO under references/ answers 404 at once, many times over (no descriptor or request left hanging)", async () => {
    const started = Date.now();
    const answers = await Promise.all(Array.from({ length: 50 }, () => get("res-attack", ["references", "fifo.md"])));
    expect(answers.map((response) => response.status)).toEqual(Array.from({ length: 50 }, () => 404));
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it.each(["zero.md", "stdin.md", "environ.md"])("a symlink to a device or /proc file (%s) answers 404", async (file) => {
    const response = await get("res-attack", ["references", file], "?format=json");
    expect(response.status).toBe(404);
    expect(await codeOf(response)).toBe("not_found");
  });

  it("a 10 GB sparse file is described in json mode and refused 413 raw, without being read", async () => {
    const started = Date.now();
    const json = await get("res-attack", ["assets", "huge.bin"], "?format=json");
    expect(json.status).toBe(200);
    const { resource } = (await json.json()) as { resource: { size: number; text: string | null; binary: boolean } };
    expect(resource.size).toBe(10 * 1024 * 1024 * 1024);
    expect(resource.text).toBeNull();
    expect(resource.binary).toBe(true);
    const raw = await get("res-attack", ["assets", "huge.bin"]);
    expect(raw.status).toBe(413);
    expect(Date.now() - started).toBeLessThan(3000);
  });
});

describe("paths that try to leave the resource folders", () => {
  it("a resource folder that is itself a symlink to outside answers 404", async () => {
    const response = await get("res-attack", ["templates", "secret.txt"]);
    expect(response.status).toBe(404);
  });

  it("a scripts/ folder symlinked to / serves nothing and runs nothing", async () => {
    expect((await get("rooted", ["scripts", "etc", "passwd"])).status).toBe(404);
    expect((await get("rooted", ["scripts", "bin", "sh"])).status).toBe(404);
  });

  it.each([
    ["references", "..", "SKILL.md"],
    ["references", "%2e%2e", "SKILL.md"],
    ["references", "..%2fSKILL.md"],
    ["references", "%252e%252e", "SKILL.md"],
    ["references", "guide.md%00.txt"],
    ["references", "guide.md\u0000"],
    ["references\\..\\SKILL.md"],
    ["references", "．．", "SKILL.md"],
    ["references", "..\u2215SKILL.md"],
    ["/etc", "passwd"],
    ["references", "x".repeat(100_000)],
    ["references", ...Array.from({ length: 5000 }, () => "a")],
  ])("refuses %j with 404", async (...segments: string[]) => {
    const response = await get("res-attack", segments, "?format=json");
    expect(response.status).toBe(404);
    expect(await codeOf(response)).toBe("not_found");
  });

  it("swapping a resource between a file and a symlink to outside never serves the outside file", { timeout: 60_000 }, async () => {
    const target = path.join(skillDir, "references", "swap.md");
    const secret = path.join(testConsole.dir, "outside", "secret.txt");
    let stop = false;
    const swapper = (async () => {
      let flip = false;
      while (!stop) {
        const temp = `${target}.${flip ? "l" : "f"}`;
        try {
          if (flip) fs.symlinkSync(secret, temp);
          else fs.writeFileSync(temp, "inside\n");
          fs.renameSync(temp, target);
        } catch {
          // keep racing
        }
        flip = !flip;
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    const texts: string[] = [];
    // At least 120 reads, and on until a few were served (most land mid-swap and answer 404).
    // Bounded by time, not a count: under load each read takes longer and most land mid-swap (404).
    const deadline = Date.now() + RACE_MS;
    for (let i = 0; i < 1000 && (i < 120 || texts.length < 5) && (i < 120 || Date.now() < deadline); i += 1) {
      const response = await get("res-attack", ["references", "swap.md"]);
      if (response.status === 200) texts.push(await response.text());
      else expect(response.status).toBe(404);
    }
    stop = true;
    await swapper;
    // Some reads got the inside file (an all-404 answer would prove nothing) and none got the secret.
    expect(texts.length).toBeGreaterThan(0);
    expect(texts.filter((text) => text !== "inside\n")).toEqual([]);
  });
});

describe("swapping a folder in the middle of the path", () => {
  it("a sub-folder swapped for a symlink to outside between the check and the open never serves the outside file", { timeout: 60_000 }, async () => {
    const sub = path.join(skillDir, "references", "sub");
    const outsideDir = path.join(testConsole.dir, "outside");
    fs.mkdirSync(path.join(testConsole.dir, "inside-sub"), { recursive: true });
    fs.writeFileSync(path.join(testConsole.dir, "inside-sub", "secret.txt"), "inside\n");
    let stop = false;
    const swapper = (async () => {
      let flip = false;
      while (!stop) {
        const temp = `${sub}.${flip ? "l" : "d"}`;
        try {
          fs.rmSync(temp, { recursive: true, force: true });
          if (flip) fs.symlinkSync(outsideDir, temp);
          else {
            fs.mkdirSync(temp);
            fs.writeFileSync(path.join(temp, "secret.txt"), "inside\n");
          }
          fs.rmSync(sub, { recursive: true, force: true });
          fs.renameSync(temp, sub);
        } catch {
          // keep racing
        }
        flip = !flip;
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    const texts: string[] = [];
    // At least 120 reads, and on until a few were served (most land mid-swap and answer 404).
    // Bounded by time, not a count: under load each read takes longer and most land mid-swap (404).
    const deadline = Date.now() + RACE_MS;
    for (let i = 0; i < 1000 && (i < 120 || texts.length < 5) && (i < 120 || Date.now() < deadline); i += 1) {
      const response = await get("res-attack", ["references", "sub", "secret.txt"]);
      if (response.status === 200) texts.push(await response.text());
      else expect(response.status).toBe(404);
    }
    stop = true;
    await swapper;
    // Some reads got the inside file (an all-404 answer would prove nothing) and none got the secret.
    expect(texts.length).toBeGreaterThan(0);
    expect(texts.filter((text) => text !== "inside\n")).toEqual([]);
  });
});

describe("a token's persona limits level 2 and 3 as the tools do", () => {
  it("skill_read_resource refuses a skill outside the token's categories (control)", async () => {
    const token = await createToken("analyst", operator.headers);
    await expect(
      callToolExpecting(403, { name: "skill_read_resource", arguments: { skill_name: "hidden-skill", path: "references/runbook.md" } }, token),
    ).resolves.toMatchObject({ error: { code: "forbidden" } });
  });

  it("the resources route refuses it too (403), instead of handing the agent the file the tool refused", async () => {
    const token = await createToken("analyst", operator.headers);
    const response = await get("hidden-skill", ["references", "runbook.md"], "", token);
    expect(response.status).toBe(403);
    expect(await codeOf(response)).toBe("forbidden");
    const json = await get("hidden-skill", ["references", "runbook.md"], "?format=json", token);
    expect(json.status).toBe(403);
  });

  it("GET /skills/{name} (level 2: the instructions) refuses it too (403)", async () => {
    const token = await createToken("analyst", operator.headers);
    const control = await callToolExpecting(403, { name: "skill_load", arguments: { skill_name: "hidden-skill" } }, token);
    expect(control).toMatchObject({ error: { code: "forbidden" } });
    const response = await invoke(skillRoute.GET, "/api/v1/skills/hidden-skill", { params: { name: "hidden-skill" }, as: token });
    expect(response.status).toBe(403);
  });

  it("a token whose persona sees the skill still reads it, and a person (no token) reads any skill", async () => {
    const token = await createToken("analyst", operator.headers);
    expect((await get("res-attack", ["references", "guide.md"], "", token)).status).toBe(200);
    expect((await get("hidden-skill", ["references", "runbook.md"], "", operator.headers)).status).toBe(200);
  });
});

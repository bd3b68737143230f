import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import * as resourceRoute from "@/app/api/v1/skills/[name]/resources/[...path]/route";
import { invoke } from "../helpers/route-client";
import { setUpTestConsole, writeNativeSkill, writeSkill, type TestConsole } from "../helpers/test-console";

let testConsole: TestConsole;
let skillDir: string;
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00]), Buffer.alloc(2038, 7)]);

beforeAll(async () => {
  testConsole = await setUpTestConsole({ SKILL_RESOURCE_LIMIT_BYTES: "4096" });
  skillDir = writeNativeSkill(testConsole.nativeRoot, "ops", "res-skill", {
    files: {
      "scripts/check.sh": "#!/bin/sh\necho ok\n",
      "references/guide.md": "# Guía\n\nPasos — uno, dos.\n",
      "references/big.md": "x".repeat(5000),
      "references/page.svg": "<svg xmlns='http://www.w3.org/2000/svg'><script>alert(1)</script></svg>",
      // Where public skills keep level 3: beside SKILL.md, and in folders of their own naming.
      "FORMS.md": "# Forms\n",
      "reference/api.md": "# API\n",
      ".env": "TOKEN=secret-in-a-hidden-file\n",
      ".git/config": "[core]\n",
      // Hidden inside a resource folder, and names the route could not be asked for.
      "references/.env": "TOKEN=also-hidden\n",
      "scripts/.git/config": "[core]\n",
      "references/%2eenv": "a name that decodes to .env\n",
    },
  });
  fs.symlinkSync("../.env", path.join(skillDir, "references", "env-link.txt"));
  fs.mkdirSync(path.join(skillDir, "assets"));
  fs.writeFileSync(path.join(skillDir, "assets", "logo.png"), PNG);
  fs.mkdirSync(path.join(skillDir, "templates", "sub"), { recursive: true });
  const outside = path.join(testConsole.dir, "outside-secret.txt");
  fs.writeFileSync(outside, "secret outside the skill\n");
  fs.symlinkSync(outside, path.join(skillDir, "references", "escape.txt"));
  fs.symlinkSync(path.join(skillDir, "SKILL.md"), path.join(skillDir, "references", "skill-file.md"));
  fs.symlinkSync(path.join(skillDir, "scripts", "check.sh"), path.join(skillDir, "references", "cross-folder.sh"));
  fs.symlinkSync("guide.md", path.join(skillDir, "references", "alias.md"));
  execFileSync("mkfifo", [path.join(skillDir, "references", "pipe")]);
  writeSkill(testConsole.root, "sub", { name: "sub_skill" }, 'echo "{}"');
});

function get(name: string, segments: string[], query = "") {
  return invoke(resourceRoute.GET, `/api/v1/skills/${name}/resources/${segments.map(encodeURIComponent).join("/")}${query}`, {
    params: { name, path: segments } as unknown as Record<string, string>,
  });
}

const refusal = (requested: string) => ({
  error: { code: "not_found", message: `no resource ${JSON.stringify(requested)} in skill res-skill (any file of its folder but SKILL.md and hidden files)` },
});

describe("GET /api/v1/skills/{name}/resources/{path…}", () => {
  it("serves a text file as text/plain with the safety headers", async () => {
    const response = await get("res-skill", ["references", "guide.md"]);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("content-security-policy")).toBe("sandbox");
    expect(response.headers.get("content-disposition")).toBeNull();
    expect(await response.text()).toBe("# Guía\n\nPasos — uno, dos.\n");
  });

  it("serves an SVG as plain text, never as an image the browser would run", async () => {
    const response = await get("res-skill", ["references", "page.svg"]);
    expect(response.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    const json = (await (await get("res-skill", ["references", "page.svg"], "?format=json")).json()) as { resource: { mediaType: string; binary: boolean } };
    expect([json.resource.mediaType, json.resource.binary]).toEqual(["image/svg+xml", false]);
  });

  it("sends a binary file as an attachment, and describes it in json mode", async () => {
    const response = await get("res-skill", ["assets", "logo.png"]);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/octet-stream");
    expect(response.headers.get("content-disposition")).toBe(`attachment; filename="logo.png"; filename*=UTF-8''logo.png`);
    expect(Buffer.from(await response.arrayBuffer()).equals(PNG)).toBe(true);
    const json = await (await get("res-skill", ["assets", "logo.png"], "?format=json")).json();
    expect(json).toEqual({
      resource: { path: "assets/logo.png", size: 2048, mediaType: "image/png", binary: true, truncated: false, text: null, description: "binary file, 2048 bytes (image/png)" },
    });
  });

  it("gives the text in json mode", async () => {
    const json = await (await get("res-skill", ["scripts", "check.sh"], "?format=json")).json();
    expect(json).toEqual({
      resource: { path: "scripts/check.sh", size: 18, mediaType: "text/x-shellscript", binary: false, truncated: false, text: "#!/bin/sh\necho ok\n", description: "text file, 18 bytes (text/x-shellscript)" },
    });
  });

  it("answers 413 too_large past the limit, and describes the file in json mode", async () => {
    const response = await get("res-skill", ["references", "big.md"]);
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({
      error: { code: "too_large", message: "references/big.md is 5000 bytes, larger than the 4096-byte limit (SKILL_RESOURCE_LIMIT_BYTES); ask with ?format=json for its description" },
    });
    const json = await (await get("res-skill", ["references", "big.md"], "?format=json")).json();
    expect(json).toEqual({
      resource: { path: "references/big.md", size: 5000, mediaType: "text/markdown", binary: false, truncated: false, text: null, description: "text file, 5000 bytes (text/markdown), larger than the 4096-byte limit" },
    });
  });

  it("refuses traversal, encoded traversal, absolute paths, backslashes and NUL", async () => {
    const attempts: string[][] = [
      ["..", "SKILL.md"],
      ["scripts", "..", "..", "res-skill", "SKILL.md"],
      ["scripts", "..", "SKILL.md"],
      ["scripts", "%2e%2e", "%2e%2e", "SKILL.md"],
      ["scripts", "%2E%2E%2FSKILL.md"],
      ["", "etc", "passwd"],
      ["scripts", "..\\SKILL.md"],
      ["scripts", "check.sh\0"],
      ["SKILL.md"],
      ["scripts"],
      ["other", "x"],
      [".env"],
      [".git", "config"],
      ["%2eenv"],
      ["reference", "..", ".env"],
    ];
    for (const segments of attempts) {
      const response = await get("res-skill", segments);
      expect(response.status, segments.join("/")).toBe(404);
      expect(await response.json()).toEqual(refusal(segments.join("/")));
    }
  });

  it("refuses symlinks leading outside the skill or to SKILL.md; follows one to a file inside the skill folder", async () => {
    for (const file of ["escape.txt", "skill-file.md"]) {
      const response = await get("res-skill", ["references", file]);
      expect(response.status, file).toBe(404);
      expect(await response.json()).toEqual(refusal(`references/${file}`));
    }
    const inside = await get("res-skill", ["references", "alias.md"]);
    expect(inside.status).toBe(200);
    expect(await inside.text()).toBe("# Guía\n\nPasos — uno, dos.\n");
    const crossFolder = await get("res-skill", ["references", "cross-folder.sh"]);
    expect(crossFolder.status).toBe(200);
    expect(await crossFolder.text()).toBe("#!/bin/sh\necho ok\n");
  });

  it("serves any file of the skill folder, beside SKILL.md or in a folder of the skill's own naming", async () => {
    const forms = await get("res-skill", ["FORMS.md"]);
    expect(forms.status).toBe(200);
    expect(await forms.text()).toBe("# Forms\n");
    const api = await get("res-skill", ["reference", "api.md"]);
    expect(api.status).toBe(200);
    expect(await api.text()).toBe("# API\n");
  });

  it("refuses a directory, a FIFO (without blocking) and a missing file", async () => {
    for (const segments of [["templates", "sub"], ["references", "pipe"], ["references", "missing.md"]]) {
      const response = await get("res-skill", segments);
      expect(response.status, segments.join("/")).toBe(404);
      expect(await response.json()).toEqual(refusal(segments.join("/")));
    }
  });

  it("answers 404 for an unknown skill and for a subprocess skill, 400 for an unknown format", async () => {
    expect(await (await get("ghost", ["scripts", "x.sh"])).json()).toEqual({ error: { code: "not_found", message: 'no skill named "ghost"' } });
    const subprocess = await get("sub_skill", ["scripts", "x.sh"]);
    expect(subprocess.status).toBe(404);
    expect(await subprocess.json()).toEqual({ error: { code: "not_found", message: "sub_skill is a subprocess skill: it has no resource files" } });
    const format = await get("res-skill", ["scripts", "check.sh"], "?format=html");
    expect(format.status).toBe(400);
  });

  it("needs a signed-in caller", async () => {
    const response = await invoke(resourceRoute.GET, "/api/v1/skills/res-skill/resources/scripts/check.sh", {
      params: { name: "res-skill", path: ["scripts", "check.sh"] } as unknown as Record<string, string>,
      as: "anonymous",
    });
    expect(response.status).toBe(401);
  });
});

describe("the resource index of the loaded skill", () => {
  it("lists regular files per folder, leaving out escaping symlinks, FIFOs and folder links, with warnings", async () => {
    const { getRegistry } = await import("@/lib/server/skills/registry");
    const skill = (await getRegistry()).get("res-skill");
    expect(skill?.kind).toBe("native");
    if (skill?.kind !== "native") return;
    expect(skill.resources).toEqual({
      scripts: ["scripts/check.sh"],
      references: ["references/alias.md", "references/big.md", "references/cross-folder.sh", "references/guide.md", "references/page.svg"],
      templates: [],
      assets: ["assets/logo.png"],
      other: ["FORMS.md", "reference/api.md"],
    });
    expect(skill.schema).toMatchObject({ properties: { script: { enum: ["check.sh"] } } });
    expect(skill.warnings).toEqual([
      'left out "references/%2eenv": its name is not valid UTF-8 or holds a %-escape, so it cannot be asked for by name',
      "left out references/env-link.txt: symbolic link to a hidden file",
      "left out references/escape.txt: symbolic link leading outside the skill folder",
      "left out references/pipe: not a regular file",
      "left out references/skill-file.md: symbolic link to the skill's own SKILL.md (level 2, not a resource)",
    ]);
  });
});

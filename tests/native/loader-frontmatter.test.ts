import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { MAX_FOLDER_ENTRIES } from "@/lib/server/skills/native/list-resources";
import { loadNativeSkills } from "@/lib/server/skills/native/native-loader";
import { parseSkillMarkdown } from "@/lib/server/skills/native/parse-skill-markdown";
import type { NativeSkill } from "@/lib/server/skills/registered-skill";

let root: string;

beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "native-loader-")));
});

/** Writes `<root>/<category>/<folder>/<file>` with raw bytes or text. */
function writeRaw(category: string, folder: string, content: string | Buffer, file = "SKILL.md"): string {
  const dir = path.join(root, category, folder);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, file), content);
  return path.join(dir, file);
}

async function load(taken: string[] = []) {
  return loadNativeSkills(root, { defaultTimeoutSeconds: 30, taken: new Set(taken), log: () => undefined });
}

async function only(): Promise<NativeSkill> {
  const { skills, report } = await load();
  expect(report.failed).toEqual([]);
  expect(skills).toHaveLength(1);
  return skills[0]!;
}

describe("awkward real-world frontmatter", () => {
  it("reads CRLF line endings and a UTF-8 BOM", async () => {
    writeRaw("ops", "crlf-skill", "\uFEFF---\r\nname: crlf-skill\r\ndescription: Checks things\r\n---\r\n# Title\r\nline two\r\n");
    const skill = await only();
    expect(skill.name).toBe("crlf-skill");
    expect(skill.description).toBe("Checks things");
    expect(skill.instructions).toBe("# Title\nline two\n");
    expect(skill.warnings).toEqual([]);
  });

  it("keeps folded and literal descriptions, trimmed", async () => {
    writeRaw("ops", "folded", "---\nname: folded\ndescription: >\n  Reports disk usage\n  of every mount.\nwhen_to_use: |\n  When space runs out.\n  Or before a deploy.\n---\nbody\n");
    const skill = await only();
    expect(skill.description).toBe("Reports disk usage of every mount.");
    expect(skill.whenToUse).toBe("When space runs out.\nOr before a deploy.");
  });

  it("accepts tabs where YAML allows them and keeps unknown keys in frontmatter", async () => {
    writeRaw("ops", "tabbed", "---\nname:\ttabbed\ndescription: Uses\ttabs inside\nversion: 1.2.0\nuser-invocable: false\nactivation:\n  mode: always\n---\n");
    const skill = await only();
    expect(skill.description).toBe("Uses\ttabs inside");
    expect(skill.frontmatter).toEqual({
      name: "tabbed",
      description: "Uses\ttabs inside",
      version: "1.2.0",
      "user-invocable": false,
      activation: { mode: "always" },
    });
    expect(skill.instructions).toBe("");
  });

  it("loads a non-ASCII name and description, the strict report naming the name rule", async () => {
    writeRaw("análisis", "análisis", "---\nname: análisis\ndescription: Análisis de registros — niveles y errores\n---\n# Análisis\n");
    const skill = await only();
    expect(skill.name).toBe("análisis");
    expect(skill.category).toBe("análisis");
    expect(skill.description).toBe("Análisis de registros — niveles y errores");
    expect(skill.warnings).toEqual([]);
    expect(skill.specDeviations).toEqual(['name "análisis" is not only lowercase letters, digits and single inner hyphens']);
  });

  it("reads flow-style (JSON-like) metadata", async () => {
    writeRaw("ops", "flowy", '---\nname: flowy\ndescription: d\nmetadata: {"openclaw": {"emoji": "x", "requires": {"bins": ["sh"]}}, "os": ["linux", "macos"]}\n---\n');
    const skill = await only();
    expect(skill.frontmatter.metadata).toEqual({ openclaw: { emoji: "x", requires: { bins: ["sh"] } }, os: ["linux", "macos"] });
    expect(skill.available).toBe(process.platform === "linux" || process.platform === "darwin");
  });

  it("uses the folder name when name is missing, with a warning, and the strict report says it is missing", async () => {
    writeRaw("ops", "no-name", "---\ndescription: nameless\n---\n");
    const skill = await only();
    expect(skill.name).toBe("no-name");
    expect(skill.warnings).toEqual(['name is missing; using the folder name "no-name"']);
    expect(skill.specDeviations).toEqual(["name is missing (required)"]);
  });

  it("reports a description over 1024 characters and a name not matching its folder strictly, and loads them", async () => {
    writeRaw("ops", "long-one", `---\nname: query_promql\ndescription: ${"x".repeat(1100)}\n---\n`);
    const skill = await only();
    expect(skill.name).toBe("query_promql");
    expect(skill.warnings).toEqual([]);
    expect(skill.specDeviations).toEqual([
      'name "query_promql" is not only lowercase letters, digits and single inner hyphens',
      'name "query_promql" is not its folder\'s name "long-one"',
      "description is 1100 characters, longer than 1024",
    ]);
  });

  it("reads a value holding an unquoted ': ' as if it were quoted, with a warning naming the line", async () => {
    writeRaw("ops", "colon", "---\nname: colon\ndescription: Deploys things. Use when: the user asks to ship\n  a release: now.\nmetadata:\n  note: a: b\n---\nbody\n");
    const skill = await only();
    expect(skill.description).toBe("Deploys things. Use when: the user asks to ship a release: now.");
    expect(skill.frontmatter.metadata).toEqual({ note: "a: b" });
    expect(skill.warnings).toEqual([
      'frontmatter line 2: the value of description holds an unquoted ": " (invalid YAML); read as if it were quoted',
      'frontmatter line 5: the value of note holds an unquoted ": " (invalid YAML); read as if it were quoted',
    ]);
    // YAML that quoting cannot mend keeps its first error.
    writeRaw("ops", "broken", "---\nname: broken\ndescription: [unclosed\n---\n");
    const { report } = await load();
    expect(report.failed.map((entry) => [entry.name, entry.reason?.startsWith("parse: frontmatter is not valid YAML")])).toEqual([[null, true]]);
  });

  it("names every departure from the Agent Skills specification in the strict report", async () => {
    writeRaw(
      "ops",
      "loose",
      [
        "---",
        "name: loose",
        "description: d",
        "homepage: https://example.com",
        "slug: loose",
        "user-invocable: true",
        "command-dispatch: tool",
        "allowed-tools: [Bash, Read]",
        "compatibility: [claude-code]",
        "when_to_use: always",
        "requires: {bins: [sh]}",
        "metadata: {openclaw: {emoji: x}, version: 2}",
        "---",
        "",
      ].join("\n"),
    );
    const skill = await only();
    expect(skill.warnings).toEqual([]);
    expect(skill.specDeviations).toEqual([
      "compatibility is a list, not a string",
      "metadata.openclaw is a mapping, not a string",
      "metadata.version is a number, not a string",
      "allowed-tools is a list, not a space-separated string",
      'field "homepage" is not in the specification',
      'field "slug" is not in the specification',
      'field "user-invocable" is not in the specification',
      'field "command-dispatch" is not in the specification',
      'field "when_to_use" is not in the specification (the console reads it)',
      'field "requires" is not in the specification (the console reads it as OpenClaw gating)',
    ]);
  });

  it("tolerates a blank line before the opening --- and keeps a later --- rule in the body", async () => {
    writeRaw("ops", "ruled", "\n  \n---\nname: ruled\ndescription: d\n---\nabove\n\n---\n\nbelow\n");
    const skill = await only();
    expect(skill.instructions).toBe("above\n\n---\n\nbelow\n");
    expect(skill.warnings).toEqual(["2 blank lines before the opening ---"]);
  });

  it("reads a lowercase skill.md, and prefers SKILL.md when both exist", async () => {
    writeRaw("ops", "lower", "---\nname: lower\ndescription: lowercase file\n---\n", "skill.md");
    writeRaw("ops", "both", "---\nname: both\ndescription: upper wins\n---\n", "SKILL.md");
    writeRaw("ops", "both", "---\nname: both\ndescription: lower loses\n---\n", "skill.md");
    const { skills, report } = await load();
    expect(skills.map((skill) => [skill.name, skill.description, path.basename(skill.source.path)])).toEqual([
      ["both", "upper wins", "SKILL.md"],
      ["lower", "lowercase file", "skill.md"],
    ]);
    expect(skills[0]!.warnings).toEqual(["both SKILL.md and skill.md exist; using SKILL.md"]);
    expect(skills[1]!.warnings).toEqual(["the file is named skill.md; the Agent Skills spec names it SKILL.md"]);
    expect(report.count).toBe(2);
  });

  it("reads SKILL.md in any letter case (Skill.md was absent from the report altogether)", async () => {
    writeRaw("ops", "title-case", "---\nname: title-case\ndescription: d\n---\n", "Skill.md");
    writeRaw("ops", "shouty", "---\nname: shouty\ndescription: d\n---\n", "SKILL.MD");
    writeRaw("ops", "two", "---\nname: two\ndescription: first in byte order\n---\n", "Skill.md");
    writeRaw("ops", "two", "---\nname: two\ndescription: second\n---\n", "skill.md");
    const { skills } = await load();
    expect(skills.map((skill) => [skill.name, skill.description, path.basename(skill.source.path), skill.warnings])).toEqual([
      ["shouty", "d", "SKILL.MD", ["the file is named SKILL.MD; the Agent Skills spec names it SKILL.md"]],
      ["title-case", "d", "Skill.md", ["the file is named Skill.md; the Agent Skills spec names it SKILL.md"]],
      ["two", "first in byte order", "Skill.md", ["both Skill.md and skill.md exist; using Skill.md"]],
    ]);
  });

  it("warns about paths the instructions name that are no file of the skill, and not about those that are", async () => {
    const file = writeRaw(
      "ops",
      "linked",
      [
        "---",
        "name: linked",
        "description: d",
        "---",
        "Read [the forms](FORMS.md) and [API](reference/api.md#auth), then `scripts/fill.py` and `reference/gone.md`.",
        "See [missing](missing.md), [outside](../other/SKILL.md), [site](https://example.com/x.md) and [anchor](#top).",
        "Edit `src/app.ts` in the user's project; read `NOTES.md`.",
        "[ref]: ./reference/",
        "```",
        "cat [not a link](nowhere.md) `scripts/in-a-fence.sh`",
        "```",
        "",
      ].join("\n"),
    );
    const dir = path.dirname(file);
    fs.writeFileSync(path.join(dir, "FORMS.md"), "forms");
    fs.mkdirSync(path.join(dir, "reference"));
    fs.writeFileSync(path.join(dir, "reference", "api.md"), "api");
    fs.mkdirSync(path.join(dir, "scripts"));
    fs.writeFileSync(path.join(dir, "scripts", "fill.py"), "print(1)");
    const skill = await only();
    expect(skill.resources.other).toEqual(["FORMS.md", "reference/api.md"]);
    expect(skill.warnings).toEqual([
      'the instructions name "missing.md", which is no file of the skill folder',
      'the instructions name "../other/SKILL.md", which is no file of the skill folder',
      'the instructions name "reference/gone.md", which is no file of the skill folder',
      'the instructions name "NOTES.md", which is no file of the skill folder',
    ]);
  });

  it("reports and skips a file with no frontmatter, and fails unclosed or broken frontmatter", async () => {
    const plain = writeRaw("ops", "plain", "# Just markdown\n");
    const unclosed = writeRaw("ops", "unclosed", "---\nname: unclosed\ndescription: never closed\n# body\n");
    const listy = writeRaw("ops", "listy", "---\n- a\n- b\n---\n");
    const badYaml = writeRaw("ops", "bad-yaml", "---\nname: [oops\n---\n");
    const dupKeys = writeRaw("ops", "dup-keys", "---\nname: a\nname: b\ndescription: d\n---\n");
    const noDescription = writeRaw("ops", "no-desc", "---\nname: no-desc\n---\n");
    const blankDescription = writeRaw("ops", "blank-desc", "---\nname: blank-desc\ndescription: '   '\n---\n");
    const { skills, report } = await load();
    expect(skills).toEqual([]);
    expect(report.skipped).toEqual([
      { path: plain, root, kind: "native", name: null, reason: "no frontmatter: the file does not start with a --- line", warnings: [] },
    ]);
    expect(report.failed.map((entry) => [entry.path, entry.name, entry.reason])).toEqual([
      [path.join(root, "ops", "bad-yaml", "SKILL.md"), null, "parse: frontmatter is not valid YAML: Flow sequence in block collection must be sufficiently indented and end with a ] at line 2, column 12"],
      [blankDescription, "blank-desc", "build: description is empty (it is required)"],
      [dupKeys, null, "parse: frontmatter is not valid YAML: Map keys must be unique at line 3, column 1"],
      [listy, null, "parse: frontmatter must be a YAML mapping (key: value lines), not a list"],
      [noDescription, "no-desc", "build: description is missing (it is required)"],
      [unclosed, null, "parse: frontmatter opened with --- on line 1 is never closed"],
    ]);
    expect(badYaml).toBe(path.join(root, "ops", "bad-yaml", "SKILL.md"));
    expect(report.log).toContain(`skill loader: skipping ${plain}: no frontmatter: the file does not start with a --- line`);
    expect(report.log).toContain(`skill loader: parse ${unclosed}: frontmatter opened with --- on line 1 is never closed`);
    expect(report.log).toContain('skill loader: build "no-desc": description is missing (it is required)');
  });

  it("rejects an alias bomb with a clear reason", async () => {
    const bomb = [
      "name: bomb",
      "description: boom",
      'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
      "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]",
      "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]",
      "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]",
      "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]",
      "f: [*e,*e,*e,*e,*e,*e,*e,*e,*e]",
    ].join("\n");
    const file = writeRaw("ops", "bomb", `---\n${bomb}\n---\n`);
    const { report } = await load();
    expect(report.failed).toEqual([
      { path: file, root, kind: "native", name: null, reason: "parse: frontmatter resolves more than 100 YAML aliases: refused as a possible alias bomb", warnings: [] },
    ]);
  });

  it("refuses an oversized SKILL.md and oversized frontmatter", async () => {
    const big = writeRaw("ops", "big-file", `---\nname: big-file\ndescription: d\n---\n${"x".repeat(1024 * 1024)}`);
    const bigMatter = writeRaw("ops", "big-matter", `---\nname: big-matter\ndescription: d\nfiller: ${"y".repeat(70 * 1024)}\n---\n`);
    const { report } = await load();
    const size = fs.statSync(big).size;
    expect(report.failed.map((entry) => [entry.path, entry.reason])).toEqual([
      [big, `parse: file is ${size} bytes, larger than the 1048576-byte limit of a SKILL.md`],
      [bigMatter, `parse: frontmatter is ${Buffer.byteLength(`name: big-matter\ndescription: d\nfiller: ${"y".repeat(70 * 1024)}`)} bytes, larger than the 65536-byte limit`],
    ]);
  });

  it("bounds what one folder may cost: a resource folder of more than MAX_FOLDER_ENTRIES names is not listed, a skill folder of more fails, each with the reason", async () => {
    writeRaw("ops", "wide", "---\nname: wide\ndescription: d\n---\nbody\n");
    const scripts = path.join(root, "ops", "wide", "scripts");
    fs.mkdirSync(scripts);
    for (let i = 0; i <= MAX_FOLDER_ENTRIES; i++) fs.writeFileSync(path.join(scripts, `s${i}.sh`), "");
    fs.writeFileSync(path.join(root, "ops", "wide", "notes.md"), "n");
    const crowded = writeRaw("ops", "crowded", "---\nname: crowded\ndescription: d\n---\nbody\n");
    for (let i = 0; i < MAX_FOLDER_ENTRIES; i++) fs.writeFileSync(path.join(path.dirname(crowded), `f${i}`), "");
    const { skills, report } = await load();
    expect(skills.map((skill) => [skill.name, skill.resources.scripts.length, skill.resources.other, skill.warnings])).toEqual([
      ["wide", 0, ["notes.md"], [`scripts/ holds more than ${MAX_FOLDER_ENTRIES} entries; its files are not listed`]],
    ]);
    expect(report.failed.map((entry) => [entry.path, entry.reason])).toEqual([[path.dirname(crowded), `parse: the folder holds more than ${MAX_FOLDER_ENTRIES} entries`]]);
  });

  it("never picks gray-matter's javascript engine from the opening fence", () => {
    const parsed = parseSkillMarkdown(Buffer.from("---js\n{name: (() => { throw new Error('ran') })()}\n---\n"));
    expect(parsed).toEqual({ ok: false, problem: "no_frontmatter", message: "no frontmatter: the file does not start with a --- line" });
  });

  it("refuses invalid UTF-8", () => {
    expect(parseSkillMarkdown(Buffer.from([0x2d, 0x2d, 0x2d, 0x0a, 0xff, 0xfe, 0x0a]))).toEqual({ ok: false, problem: "parse", message: "file is not valid UTF-8 text" });
  });
});

import { describe, expect, it } from "vitest";
import { missingInstructionPaths } from "./instruction-paths";

const FILES = ["SKILL.md", "FORMS.md", "reference/api.md", "scripts/fill.py", "assets/logo.png"];

describe("missingInstructionPaths", () => {
  const cases: Array<[string, string, string[]]> = [
    ["a link to a file beside SKILL.md", "See [forms](FORMS.md).", []],
    ["a link with an anchor and a title", '[api](reference/api.md#auth "API")', []],
    ["a link to a folder of the skill", "[all](reference/) and [here](./)", []],
    ["a link to a missing file", "[x](reference/gone.md)", ["reference/gone.md"]],
    ["a link leading out of the folder", "[x](../other/SKILL.md)", ["../other/SKILL.md"]],
    ["URLs, anchors, mail and absolute paths", "[a](https://x.io/a.md) [b](#top) [c](mailto:a@b.c) [d](/etc/passwd)", []],
    ["an image and a reference definition", "![logo](assets/logo.png)\n[ref]: assets/missing.png", ["assets/missing.png"]],
    ["a percent-encoded link", "[x](reference/api%2Emd)", []],
    ["a code span in a skill folder", "Run `scripts/fill.py`, then `scripts/other.py`.", ["scripts/other.py"]],
    ["a code span naming the user's project", "Edit `src/app.ts` and `package.json`.", []],
    ["a bare upper-case markdown name", "Read `NOTES.md` and `FORMS.md`.", ["NOTES.md"]],
    ["a bare lower-case markdown name (a file the skill has the agent write)", "Save it as `notes-2026-01-14.md`.", []],
    ["links and spans inside a fenced block", "```\n[x](nowhere.md) `scripts/none.sh`\n```\n", []],
    ["the same missing path twice", "[a](x.md) [b](x.md)", ["x.md"]],
  ];
  for (const [what, markdown, expected] of cases) {
    it(what, () => expect(missingInstructionPaths(markdown, FILES)).toEqual(expected));
  }
});

describe("missingInstructionPaths on hostile bodies", () => {
  // A quadratic scan of a megabyte takes minutes (the loader froze the console meanwhile); a linear one
  // milliseconds: this test's timeout is what fails, no figure is asserted.
  it("scans a megabyte of brackets, link openings, fences and backticks without stalling", { timeout: 20_000 }, () => {
    for (const unit of ["[", "[](", "[a](b ", '[a](b "', "`", "~", "<", "](<", "```\n", "[x]: "]) {
      expect(missingInstructionPaths(unit.repeat(Math.ceil((1024 * 1024) / unit.length)), FILES)).toBeInstanceOf(Array);
    }
  });
});

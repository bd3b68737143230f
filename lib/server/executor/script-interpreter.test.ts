import { describe, expect, it } from "vitest";
import { chooseInterpreter, parseShebang } from "./script-interpreter";

const SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin";
const ALLOWED = ["bash", "sh", "python3"];

function script(name: string, content: string): { name: string; firstLine: string } {
  return { name, firstLine: content.split(/\r?\n/, 1)[0] ?? "" };
}

describe("parseShebang", () => {
  it.each([
    ["#!/bin/bash", { name: "bash", flags: [] }],
    ["#!/usr/bin/env python3", { name: "python3", flags: [] }],
    ["#! /bin/sh -e", { name: "sh", flags: ["-e"] }],
    ["#!/usr/bin/env -S bash -eu", { name: "bash", flags: ["-eu"] }],
    ["echo hi", null],
  ])("%s", (line, expected) => {
    expect(parseShebang(line)).toEqual(expected);
  });

  it("refuses what it would have to guess at", () => {
    expect(parseShebang("#!")).toBe("the shebang line names no interpreter");
    expect(parseShebang("#!/usr/bin/env")).toBe("the shebang line runs env with no interpreter");
    expect(parseShebang("#!/bin/bash -c")).toBe(`the shebang passes "-c" to its interpreter; only plain options such as -e are accepted`);
    expect(parseShebang("#!/bin/bash -ec")).toBe(`the shebang passes "-ec" to its interpreter; only plain options such as -e are accepted`);
    expect(parseShebang("#!/usr/bin/env python3 -m http.server")).toBe(`the shebang passes "-m" to its interpreter; only plain options such as -e are accepted`);
  });
});

describe("chooseInterpreter (allow-list, fixed PATH)", () => {
  it("prefers the shebang, then the extension", () => {
    expect(chooseInterpreter(script("a.sh", "#!/usr/bin/env bash\n"), ALLOWED, SYSTEM_PATH)).toEqual({ name: "bash", path: expect.stringMatching(/^\/(usr\/)?(local\/)?bin\/bash$/), flags: [] });
    expect(chooseInterpreter(script("b.sh", "echo\n"), ALLOWED, SYSTEM_PATH)).toMatchObject({ name: "sh", flags: [] });
    expect(chooseInterpreter(script("c.py", "print(1)\n"), ALLOWED, SYSTEM_PATH)).toMatchObject({ name: "python3" });
    expect(chooseInterpreter(script("d.bash", "echo\n"), ALLOWED, SYSTEM_PATH)).toMatchObject({ name: "bash" });
  });

  it("refuses interpreters outside the allow-list, whatever PATH holds", () => {
    expect(chooseInterpreter(script("a.sh", "#!/usr/bin/perl\n"), ALLOWED, SYSTEM_PATH)).toBe("interpreter perl (from the shebang) is not in the allow-list: bash, sh, python3");
    expect(chooseInterpreter(script("b.py", "print(1)\n"), ["bash"], SYSTEM_PATH)).toBe("interpreter python3 (from its .py extension) is not in the allow-list: bash");
    expect(chooseInterpreter(script("c.rb", "puts 1\n"), ALLOWED, SYSTEM_PATH)).toBe("script c.rb has no shebang line and no known extension (.sh, .bash, .py): no interpreter to run it with");
  });

  it("looks the interpreter up only on the given PATH", () => {
    expect(chooseInterpreter(script("a.sh", "#!/bin/bash\n"), ALLOWED, "/nonexistent")).toBe("interpreter bash is not installed on /nonexistent");
  });
});

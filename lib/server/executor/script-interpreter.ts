import { accessSync, constants as fsConstants, realpathSync, statSync } from "node:fs";
import path from "node:path";

/** An interpreter a native skill's script runs under: its allow-listed name, absolute path and shebang flags. */
export interface ScriptInterpreter {
  /** The allow-list name (`bash`, `sh`, `python3`). */
  name: string;
  /** Absolute path found on the fixed system PATH. */
  path: string;
  /** Options from the script's shebang line (`#!/bin/bash -eu` → ["-eu"]), passed before the script path. */
  flags: string[];
}

/** Interpreter by file extension, used when a script has no shebang line (seed 004 task 6.1). */
const BY_EXTENSION: Record<string, string> = { ".sh": "sh", ".bash": "bash", ".py": "python3" };

/**
 * Letters a shebang's options may use: bash/sh `-e -u -x -v`, python3 `-u -B -E -I`. Never `c`, `m`,
 * `o`, `s`, `W` or `X`, which take the next word as code, a module, an option or read stdin instead.
 */
const SHEBANG_FLAG = /^-[euxvBEI]+$/;

/**
 * The interpreter named by a script's first line, or null when it has none: `#!/bin/bash` → bash,
 * `#!/usr/bin/env python3` → python3, `#!/usr/bin/env -S bash -e` → bash with ["-e"]. Flags must be
 * plain options made of SHEBANG_FLAG_LETTERS (`-e`, `-eu`, python's `-u`, `-B`, `-E`, `-I`); anything
 * else — `-c`, which would make the interpreter run the script's path as a command string, `-m`,
 * `-o opt` — makes the shebang unusable (returned as an error string) rather than guessed at. Pure.
 */
export function parseShebang(firstLine: string): { name: string; flags: string[] } | string | null {
  if (!firstLine.startsWith("#!")) return null;
  const words = firstLine.slice(2).trim().split(/\s+/).filter((word) => word !== "");
  let program = words[0];
  let rest = words.slice(1);
  if (program === undefined) return "the shebang line names no interpreter";
  if (path.basename(program) === "env") {
    if (rest[0] === "-S") rest = rest.slice(1);
    program = rest[0];
    if (program === undefined) return "the shebang line runs env with no interpreter";
    rest = rest.slice(1);
  }
  const flags = rest;
  const badFlag = flags.find((flag) => !SHEBANG_FLAG.test(flag));
  if (badFlag !== undefined) return `the shebang passes ${JSON.stringify(badFlag)} to its interpreter; only plain options such as -e are accepted`;
  return { name: path.basename(program), flags };
}

/**
 * Looks a bare command name up on `searchPath` (colon-separated absolute folders, in order) and returns
 * the realpath of the first executable regular file, or null.
 */
export function findOnPath(name: string, searchPath: string): string | null {
  for (const folder of searchPath.split(":")) {
    if (!path.isAbsolute(folder)) continue;
    const candidate = path.join(folder, name);
    try {
      const real = realpathSync.native(candidate);
      if (!statSync(real).isFile()) continue;
      accessSync(real, fsConstants.X_OK);
      return candidate;
    } catch {
      // Not here: try the next folder.
    }
  }
  return null;
}

/**
 * Chooses the interpreter of a native skill's script (seed 004 task 6.1 "option A", DESIGN.md "Native
 * skills"): the shebang line's interpreter when there is one, else by extension (`.sh` → sh, `.bash` →
 * bash, `.py` → python3). The name must be in `allowed` (SKILL_SCRIPT_INTERPRETERS) and is looked up
 * only on `searchPath` (the fixed system PATH), never on the console's own PATH. `script` is the
 * script's name (for its extension) and the first line of the bytes the call will run (the skills
 * adapter reads them from the call's snapshot, never from the live file again). Returns the
 * interpreter, or the reason the script may not run (e.g. `interpreter perl (from the shebang) is not
 * in the allow-list: bash, sh, python3`). Never throws.
 */
export function chooseInterpreter(script: { name: string; firstLine: string }, allowed: readonly string[], searchPath: string): ScriptInterpreter | string {
  const shebang = parseShebang(script.firstLine);
  if (typeof shebang === "string") return shebang;
  let choice: { name: string; flags: string[]; from: string };
  if (shebang) {
    choice = { ...shebang, from: "the shebang" };
  } else {
    const extension = path.extname(script.name).toLowerCase();
    const byExtension = BY_EXTENSION[extension];
    if (!byExtension) return `script ${path.basename(script.name)} has no shebang line and no known extension (.sh, .bash, .py): no interpreter to run it with`;
    choice = { name: byExtension, flags: [], from: `its ${extension} extension` };
  }
  if (!allowed.includes(choice.name)) {
    return `interpreter ${choice.name} (from ${choice.from}) is not in the allow-list: ${allowed.join(", ") || "(empty)"}`;
  }
  const found = findOnPath(choice.name, searchPath);
  if (!found) return `interpreter ${choice.name} is not installed on ${searchPath}`;
  return { name: choice.name, path: found, flags: choice.flags };
}

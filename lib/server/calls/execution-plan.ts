import { lstatSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import { chooseInterpreter } from "../executor/script-interpreter";
import { consoleEnvValue, SCRIPT_SYSTEM_PATH } from "../env";
import { isUnderRoot } from "../skills/allowlist-roots";
import type { NativeSkill, RegisteredSkill } from "../skills/registered-skill";

/**
 * Exactly what one call will execute (DESIGN.md "Subprocess skills" wire protocol and "Native skills"
 * scripts): the process to spawn and the files a call's digest covers.
 */
export interface ExecutionPlan {
  /** Absolute path of the program: a subprocess skill's entry, or the interpreter of a native script. */
  command: string;
  /** argv after the command: none for subprocess skills; interpreter flags, the script's realpath, then the call's `args` for scripts. */
  args: string[];
  cwd: string;
  /** The child's whole environment. */
  env: Record<string, string>;
  /** Written to stdin: the args JSON for subprocess skills, nothing for scripts. */
  stdin: string;
  /** The manifest file hashed into the digest: skill.json, or SKILL.md. */
  manifestFile: string;
  /** The executable file hashed into the digest: the entry, or the script (realpaths). */
  entryFile: string;
  /** The interpreter's path for a native script (part of its digest); null for subprocess skills. */
  interpreter: string | null;
  /** How stdout is read: one JSON object (subprocess skills) or text (scripts). */
  output: "json-object" | "text";
  /** How the timeline's start line names what was run, e.g. `/usr/bin/python3 scripts/analyze.py`. */
  label: string;
}

/** The settings a plan depends on. */
export interface PlanSettings {
  scriptInterpreters: readonly string[];
}

/**
 * The exact environment of a skill's child: only the `env_allow` names that the console's own
 * environment has (seed 000: an empty list means an empty environment, not even PATH). The console's
 * own secrets are never forwarded (consoleEnvValue).
 */
export function childEnvironment(envAllow: readonly string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of envAllow) {
    const value = consoleEnvValue(name);
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/**
 * Plans the run of one call of `skill` with the call's validated args text (`argsJson`). A subprocess
 * skill runs its entry with the args on stdin. A native skill runs `args.script` — a file under its
 * `scripts/` folder, checked again here after realpath (a symlink or a swapped folder that leads out
 * of `scripts/` is refused) — under the interpreter its shebang or extension names, from the
 * SKILL_SCRIPT_INTERPRETERS allow-list, with `args.args` as argv, the skill's folder as working
 * directory, and an environment of the fixed system PATH plus the skill's `env_allow` names (seed 004
 * task 6; DESIGN.md "Native skills"). The SKILL.md (skillFile) and the script must still be regular
 * files: both are hashed synchronously for the call's digest, and a FIFO would block the console.
 * Synchronous on purpose: the runner calls it again with no await before the spawn. Returns the plan,
 * or the reason the call must not run; never throws.
 */
export function planExecution(skill: RegisteredSkill, argsJson: string, settings: PlanSettings): ExecutionPlan | string {
  if (skill.kind === "subprocess") {
    return {
      command: skill.entryPath,
      args: [],
      cwd: skill.workingDirectory,
      env: childEnvironment(skill.envAllow),
      stdin: argsJson,
      manifestFile: skill.source.path,
      entryFile: skill.entryPath,
      interpreter: null,
      output: "json-object",
      label: skill.entryPath,
    };
  }
  return planScript(skill, argsJson, settings);
}

function planScript(skill: NativeSkill, argsJson: string, settings: PlanSettings): ExecutionPlan | string {
  let args: { script?: unknown; args?: unknown };
  try {
    args = JSON.parse(argsJson) as { script?: unknown; args?: unknown };
  } catch {
    return "the call's args are not JSON";
  }
  const script = args.script;
  const argv = args.args === undefined ? [] : args.args;
  if (typeof script !== "string" || script === "") return "args.script must name one of the skill's scripts";
  if (!Array.isArray(argv) || !argv.every((value): value is string => typeof value === "string")) return "args.args must be an array of strings";
  if (argv.some((value) => value.includes("\0"))) return "args.args must not contain NUL characters";

  // SKILL.md is read (hashed) synchronously for the call's digest right after this plan: it must still
  // be the regular file the loader read, never a FIFO or device swapped in since (a blocking read
  // would freeze the console's one thread; review 5). lstat: a symlink swapped in is refused too.
  try {
    if (!lstatSync(skill.skillFile).isFile()) return `the SKILL.md of ${skill.name} is no longer a regular file`;
  } catch (error) {
    return `the SKILL.md of ${skill.name} cannot be read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`;
  }

  const scriptsDir = path.join(skill.skillDir, "scripts");
  const requested = path.resolve(scriptsDir, script);
  if (script.includes("\0") || !isUnderRoot(scriptsDir, requested)) return `script ${JSON.stringify(script)} is not under the skill's scripts/ folder`;
  let realScriptsDir: string;
  let realScript: string;
  try {
    realScriptsDir = realpathSync(scriptsDir);
    realScript = realpathSync(requested);
  } catch (error) {
    return `script ${script} cannot be resolved: ${(error as NodeJS.ErrnoException).code ?? String(error)}`;
  }
  if (realScriptsDir !== scriptsDir && !isUnderRoot(skill.skillDir, realScriptsDir)) return `the scripts/ folder of ${skill.name} leads out of the skill's folder (${realScriptsDir})`;
  if (!isUnderRoot(realScriptsDir, realScript)) return `script ${script} escapes the skill's scripts/ folder (it resolves to ${realScript})`;
  try {
    if (!statSync(realScript).isFile()) return `script ${script} is not a regular file`;
  } catch (error) {
    return `script ${script} cannot be read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`;
  }
  const interpreter = chooseInterpreter(realScript, settings.scriptInterpreters, SCRIPT_SYSTEM_PATH);
  if (typeof interpreter === "string") return interpreter;
  return {
    command: interpreter.path,
    args: [...interpreter.flags, realScript, ...argv],
    cwd: skill.skillDir,
    env: { PATH: SCRIPT_SYSTEM_PATH, ...childEnvironment(skill.envAllow) },
    stdin: "",
    manifestFile: skill.skillFile,
    entryFile: realScript,
    interpreter: interpreter.path,
    output: "text",
    label: `${interpreter.path} ${path.relative(skill.skillDir, realScript)}`,
  };
}

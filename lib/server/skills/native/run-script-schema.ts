import type { JsonSchema } from "@/lib/types/skill";

/** Most argv entries a script call may pass. */
export const MAX_SCRIPT_ARGS = 256;
/** Longest single argv entry, in characters. */
export const MAX_SCRIPT_ARG_LENGTH = 65_536;

/**
 * The args schema of a native skill, i.e. of `skill_run_script` for that skill (seed 004 task 6.3,
 * DESIGN.md "Native skills"): `{script, args}` where `script` is one of the skill's scripts, named
 * relative to its `scripts/` folder (`check.sh`, `lib/report.py`; the default when it is the only
 * one), and `args` the argv strings (default none). Takes the skill's script names relative to `scripts/`, sorted; with none, `script` accepts
 * nothing (the skill cannot be run, and the schema says so instead of offering a free text field).
 * Pure.
 */
export function runScriptSchema(scripts: readonly string[]): JsonSchema {
  const script: JsonSchema =
    scripts.length > 0
      ? { type: "string", title: "Script", description: "A script under the skill's scripts/ folder.", enum: [...scripts], ...(scripts.length === 1 ? { default: scripts[0] } : {}) }
      : { type: "string", title: "Script", description: "This skill has no scripts/ folder: nothing to run.", not: {} };
  return {
    type: "object",
    additionalProperties: false,
    required: ["script"],
    properties: {
      script,
      args: {
        type: "array",
        title: "Arguments",
        description: "Passed to the script as argv, one string each.",
        items: { type: "string", maxLength: MAX_SCRIPT_ARG_LENGTH },
        maxItems: MAX_SCRIPT_ARGS,
        default: [],
      },
    },
  };
}

/** The script names of `runScriptSchema`: a skill's `scripts/…` resource paths without the `scripts/` prefix. */
export function scriptNames(scriptResources: readonly string[]): string[] {
  return scriptResources.filter((file) => file.startsWith("scripts/")).map((file) => file.slice("scripts/".length));
}

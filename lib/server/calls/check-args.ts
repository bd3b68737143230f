import type { JsonSchema } from "@/lib/types/skill";
import { validateArgsJson } from "@/lib/validation/args-validator";
import { exceedsJsonDepth, MAX_JSON_DEPTH } from "@/lib/validation/json-depth";
import { AppError } from "../errors";

/**
 * Checks args against a skill's schema the way a call does (DESIGN.md wire protocol: invalid args never
 * start a process): absent args are `{}`; anything but a JSON object, args nested deeper than
 * MAX_JSON_DEPTH, and args the schema refuses (ajv with formats, in the time-bounded validation worker)
 * throw AppError `invalid_args` with ajv-shaped errors in `details`. Returns the args' canonical JSON
 * text (RFC 8785, made by the validation worker in the same pass: issue 10 point 1) — the exact text
 * that is stored, bound into the call's digest (digestCall) and that the child will read on stdin.
 */
export async function checkArgs(skill: { name: string; schema: JsonSchema }, given: unknown): Promise<string> {
  const args = given === undefined ? {} : given;
  if (args === null || typeof args !== "object" || Array.isArray(args)) {
    throw new AppError("invalid_args", "args must be a JSON object", [
      { instancePath: "", keyword: "type", params: { type: "object" }, message: "must be object" },
    ]);
  }
  // Deeper args could not even be serialised (JSON.stringify recurses): refuse them as invalid, not 500.
  if (exceedsJsonDepth(args, MAX_JSON_DEPTH)) {
    throw new AppError("invalid_args", `args nest deeper than ${MAX_JSON_DEPTH} levels`, [
      { instancePath: "", keyword: "maxDepth", params: { limit: MAX_JSON_DEPTH }, message: `must not nest deeper than ${MAX_JSON_DEPTH} levels` },
    ]);
  }
  const argsJson = JSON.stringify(args);
  const validation = await validateArgsJson(skill.schema, argsJson);
  if (!validation.ok) {
    throw new AppError("invalid_args", `args do not match the schema of ${skill.name}`, validation.errors);
  }
  return validation.canonical;
}

import type { JsonSchema } from "@/lib/types/skill";
import { validateArgsJson } from "@/lib/validation/args-validator";
import { exceedsJsonDepth, MAX_JSON_DEPTH } from "@/lib/validation/json-depth";
import { JsonText } from "@/lib/validation/json-text";
import { AppError } from "../errors";

const NOT_AN_OBJECT = () =>
  new AppError("invalid_args", "args must be a JSON object", [{ instancePath: "", keyword: "type", params: { type: "object" }, message: "must be object" }]);

const TOO_DEEP = () =>
  new AppError("invalid_args", `args nest deeper than ${MAX_JSON_DEPTH} levels`, [
    { instancePath: "", keyword: "maxDepth", params: { limit: MAX_JSON_DEPTH }, message: `must not nest deeper than ${MAX_JSON_DEPTH} levels` },
  ]);

/**
 * Checks args against a skill's schema the way a call does (DESIGN.md wire protocol: invalid args never
 * start a process): absent args are `{}`; anything but a JSON object, args nested deeper than
 * MAX_JSON_DEPTH, and args the schema refuses (ajv with formats, in the time-bounded validation worker)
 * throw AppError `invalid_args` with ajv-shaped errors in `details`; args given as a JsonText (the
 * request body's text, not parsed on the main thread: issue 10 point 1) that is not JSON throw
 * `bad_request`. Returns the args' canonical JSON text (RFC 8785, made by the validation worker in the
 * same pass) — the exact text that is stored, bound into the call's digest (digestCall) and that the
 * child will read on stdin.
 */
export async function checkArgs(skill: { name: string; schema: JsonSchema }, given: unknown): Promise<string> {
  let argsJson: string;
  if (given instanceof JsonText) argsJson = given.text;
  else {
    const args = given === undefined ? {} : given;
    if (args === null || typeof args !== "object" || Array.isArray(args)) throw NOT_AN_OBJECT();
    // Deeper args could not even be serialised (JSON.stringify recurses): refuse them as invalid, not 500.
    if (exceedsJsonDepth(args, MAX_JSON_DEPTH)) throw TOO_DEEP();
    argsJson = JSON.stringify(args);
  }
  const validation = await validateArgsJson(skill.schema, argsJson);
  if (validation.ok) return validation.canonical;
  if (validation.refusal === "json") throw new AppError("bad_request", `request body is not valid JSON: ${validation.message ?? "the args could not be parsed"}`);
  if (validation.refusal === "type") throw NOT_AN_OBJECT();
  if (validation.refusal === "depth") throw TOO_DEEP();
  if (validation.refusal === "canonical") {
    throw new AppError("invalid_args", `args have no canonical JSON form (RFC 8785), so they cannot be bound to a digest: ${validation.message ?? "unknown reason"}`, [
      { instancePath: "", keyword: "canonical", params: {}, message: validation.message ?? "has no canonical JSON form" },
    ]);
  }
  throw new AppError("invalid_args", `args do not match the schema of ${skill.name}`, validation.errors);
}

import { AppError } from "../errors";

/** The fields a preset request body may have. */
const PRESET_FIELDS: readonly string[] = ["name", "args"];

/**
 * Checks the shape of a preset request body: a JSON object with only `name` and `args`. Returns it;
 * throws AppError `bad_request` for anything else (a typo must not save a preset with empty args).
 */
export function parsePresetRequest(body: unknown): { name?: unknown; args?: unknown } {
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw new AppError("bad_request", 'the request body must be a JSON object like {"name": "...", "args": {...}}');
  }
  const unknown = Object.keys(body).filter((key) => !PRESET_FIELDS.includes(key));
  if (unknown.length > 0) {
    throw new AppError("bad_request", `unknown field${unknown.length > 1 ? "s" : ""} ${unknown.map((key) => JSON.stringify(key)).join(", ")}; a preset has name, args`);
  }
  return body as { name?: unknown; args?: unknown };
}

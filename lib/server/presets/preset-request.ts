import { AppError } from "../errors";
import { refuseUnknownFields } from "../http/known-fields";

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
  refuseUnknownFields(body, PRESET_FIELDS, "a preset");
  return body as { name?: unknown; args?: unknown };
}

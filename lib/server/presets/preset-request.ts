import { AppError } from "../errors";
import { refuseUnknownFields } from "../http/known-fields";
import { checkPresetName } from "./preset-record";

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

/**
 * Says why a preset request body was refused by its schema (lib/validation/call-requests.ts), in the
 * words of parsePresetRequest and checkPresetName (`unknown field "argz"; a preset has name, args`,
 * `name must have 1 to 100 characters`). Throws that AppError `bad_request`; returns when it finds
 * nothing to say (checkRequestBody then answers with the schema's message).
 */
export function explainPreset(body: unknown): void {
  const preset = parsePresetRequest(body);
  if (preset.name !== undefined) checkPresetName(preset.name);
}

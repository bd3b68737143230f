import type { ArgPreset as PresetRow } from "@prisma/client";
import type { ArgPreset } from "@/lib/types/preset";
import { JsonText } from "@/lib/validation/json-text";
import { AppError } from "../errors";
import { defineStoredJson } from "../http/stored-json";

/** Longest preset name, in characters. */
export const MAX_PRESET_NAME_LENGTH = 100;

/**
 * Longest args text a preset may hold, in bytes (a call's may be larger): presets fill a form and
 * are listed together, every one of them in each answer (issue 10 point 1).
 */
export const PRESET_ARGS_MAX_BYTES = 64 * 1024;

/** Most presets one skill may have. */
export const MAX_PRESETS_PER_SKILL = 100;

/**
 * Checks the size of a preset's args as sent (a JsonText from the body, or a value): throws AppError
 * `args_too_large` (413) past PRESET_ARGS_MAX_BYTES, before anything parses them.
 */
export function checkPresetArgsSize(args: unknown): void {
  const bytes = args instanceof JsonText ? Buffer.byteLength(args.text, "utf8") : 0;
  if (bytes > PRESET_ARGS_MAX_BYTES) throw new AppError("args_too_large", `a preset's args may be at most ${PRESET_ARGS_MAX_BYTES} bytes (these are ${bytes}); a call's may be larger`);
}

/** Maps a stored preset to the API shape; `args` (canonical JSON text) is parsed when read and served as stored (stored-json.ts). */
export function toPreset(row: PresetRow): ArgPreset {
  const preset = {
    id: row.id,
    skill: row.skill,
    name: row.name,
    args: {},
    createdBy: row.createdBy,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
  return defineStoredJson(preset, "args", row.args, {});
}

/**
 * Checks a preset name: a string of 1–100 characters once trimmed, without control characters.
 * Returns the trimmed name; throws AppError `bad_request` otherwise.
 */
export function checkPresetName(value: unknown): string {
  if (typeof value !== "string") throw new AppError("bad_request", "name must be a string");
  const name = value.trim();
  if (name.length === 0 || name.length > MAX_PRESET_NAME_LENGTH) {
    throw new AppError("bad_request", `name must have 1 to ${MAX_PRESET_NAME_LENGTH} characters`);
  }
  if (/[\u0000-\u001f\u007f]/.test(name)) throw new AppError("bad_request", "name must not contain control characters");
  return name;
}

/** True when a Prisma error is the unique (skill, name) constraint. */
export function isDuplicateName(error: unknown): boolean {
  return (error as { code?: string } | null)?.code === "P2002";
}

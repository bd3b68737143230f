import type { ArgPreset as PresetRow } from "@prisma/client";
import type { ArgPreset } from "@/lib/types/preset";
import { AppError } from "../errors";

/** Longest preset name, in characters. */
export const MAX_PRESET_NAME_LENGTH = 100;

/** Maps a stored preset to the API shape; `args` is parsed from its JSON text. */
export function toPreset(row: PresetRow): ArgPreset {
  return {
    id: row.id,
    skill: row.skill,
    name: row.name,
    args: JSON.parse(row.args) as Record<string, unknown>,
    createdBy: row.createdBy,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
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

import type { ArgPreset } from "@/lib/types/preset";
import { db } from "../db";
import { AppError } from "../errors";
import { toPreset } from "./preset-record";

/** Deletes a preset of a skill (`DELETE /api/v1/skills/{name}/presets/{id}`) and returns it; throws `not_found`. */
export async function deletePreset(skillName: string, id: string): Promise<ArgPreset> {
  const existing = await db().argPreset.findFirst({ where: { id, skill: skillName } });
  if (!existing) throw new AppError("not_found", `${skillName} has no preset with id ${JSON.stringify(id)}`);
  await db().argPreset.deleteMany({ where: { id, skill: skillName } });
  return toPreset(existing);
}

import type { ArgPreset } from "@/lib/types/preset";
import { db } from "../db";
import { toPreset } from "./preset-record";

/** The saved presets of a skill, by name (`GET /api/v1/skills/{name}/presets`). Presets of a skill no longer registered are still listed. */
export async function listPresets(skill: string): Promise<ArgPreset[]> {
  const rows = await db().argPreset.findMany({ where: { skill }, orderBy: { name: "asc" } });
  return rows.map(toPreset);
}

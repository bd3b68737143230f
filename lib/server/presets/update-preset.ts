import type { ArgPreset } from "@/lib/types/preset";
import { checkArgs } from "../calls/check-args";
import { db } from "../db";
import { AppError } from "../errors";
import { getRegistry } from "../skills/registry";
import { checkPresetArgsSize, checkPresetName, isDuplicateName, toPreset } from "./preset-record";

/**
 * Renames a preset and/or replaces its args (`PUT /api/v1/skills/{name}/presets/{id}` with `{name?,
 * args?}`); new args are checked against the skill's current schema. Throws `not_found` (no such
 * preset for that skill, or the skill is gone and args were given), `bad_request`, `invalid_args`,
 * `conflict` (the new name is taken).
 */
export async function updatePreset(skillName: string, id: string, changes: { name?: unknown; args?: unknown }): Promise<ArgPreset> {
  const existing = await db().argPreset.findFirst({ where: { id, skill: skillName } });
  if (!existing) throw new AppError("not_found", `${skillName} has no preset with id ${JSON.stringify(id)}`);
  const data: { name?: string; args?: string } = {};
  if (changes.name !== undefined) data.name = checkPresetName(changes.name);
  if (changes.args !== undefined) {
    const skill = (await getRegistry()).get(skillName);
    if (!skill) throw new AppError("not_found", `no skill named ${JSON.stringify(skillName)}`);
    checkPresetArgsSize(changes.args);
    data.args = await checkArgs(skill, changes.args);
  }
  try {
    return toPreset(await db().argPreset.update({ where: { id }, data }));
  } catch (error) {
    if (isDuplicateName(error)) throw new AppError("conflict", `${skillName} already has a preset named ${JSON.stringify(data.name)}`);
    throw error;
  }
}

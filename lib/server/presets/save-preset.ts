import { randomUUID } from "node:crypto";
import type { ArgPreset } from "@/lib/types/preset";
import { checkArgs } from "../calls/check-args";
import { db } from "../db";
import { AppError } from "../errors";
import { getRegistry } from "../skills/registry";
import { checkPresetArgsSize, checkPresetName, isDuplicateName, MAX_PRESETS_PER_SKILL, toPreset } from "./preset-record";

/** Input of savePreset: the request body `{name, args}` and who saves it. */
export interface SavePresetInput {
  skillName: string;
  name: unknown;
  args: unknown;
  createdBy: string;
}

/**
 * Saves a named args preset for a registered skill (`POST /api/v1/skills/{name}/presets`), visible to
 * everyone using the console. The args are checked exactly as a call's are, so a preset always holds
 * args that ran valid when saved. Throws `not_found` (no such skill), `bad_request` (name),
 * `invalid_args` (args), `args_too_large` (413: past PRESET_ARGS_MAX_BYTES), `conflict` (409: the
 * skill already has a preset of that name, or MAX_PRESETS_PER_SKILL).
 */
export async function savePreset(input: SavePresetInput): Promise<ArgPreset> {
  const skill = (await getRegistry()).get(input.skillName);
  if (!skill) throw new AppError("not_found", `no skill named ${JSON.stringify(input.skillName)}`);
  const name = checkPresetName(input.name);
  checkPresetArgsSize(input.args);
  if ((await db().argPreset.count({ where: { skill: skill.name } })) >= MAX_PRESETS_PER_SKILL) {
    throw new AppError("conflict", `${skill.name} has ${MAX_PRESETS_PER_SKILL} presets, the most a skill may have; delete one first`);
  }
  const args = await checkArgs(skill, input.args);
  try {
    const row = await db().argPreset.create({ data: { id: randomUUID(), skill: skill.name, name, args, createdBy: input.createdBy } });
    return toPreset(row);
  } catch (error) {
    if (isDuplicateName(error)) throw new AppError("conflict", `${skill.name} already has a preset named ${JSON.stringify(name)}`);
    throw error;
  }
}

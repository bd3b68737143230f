import { payloadText } from "../calls/call-payloads";
import { config, SCRIPT_SYSTEM_PATH } from "../env";
import { AppError } from "../errors";
import { planCall, PlanError, StaleSkillError, type CallPlan } from "./call-plan";
import { packRefusal } from "../packs/pack-refusal";
import { getRegistry, updateRegistry } from "./registry";
import { digestMismatchReason } from "./skill-digest";
import type { RegisteredSkill } from "./registered-skill";

/**
 * Plans a call on the console's copy of its skill (planCall: one read of the folder, the skill's and
 * the call's digests, what will run), with the console's settings. Throws AppError `conflict` (409)
 * with the reason when it cannot run (a script outside scripts/, an interpreter outside the
 * allow-list, a folder too big to hash, a pack's skill whose digest is not the one its enabled version
 * lists: packRefusal), and StaleSkillError itself when the skill file is no longer
 * the one the registry loaded (the caller rescans it).
 */
export async function planOnConsole(skill: RegisteredSkill, argsJson: string): Promise<CallPlan> {
  const settings = config();
  let plan: CallPlan;
  try {
    plan = await planCall(skill, argsJson, { scriptInterpreters: settings.scriptInterpreters, systemPath: SCRIPT_SYSTEM_PATH, limits: settings.skillFolderLimits });
  } catch (error) {
    if (error instanceof StaleSkillError) throw error;
    if (error instanceof PlanError) throw new AppError("conflict", `${skill.name} cannot run this call: ${error.message}`);
    throw error;
  }
  const packRefused = await packRefusal(skill.name, plan.folder, plan.skill.digest);
  if (packRefused) throw new AppError("conflict", `${skill.name} cannot run this call: ${packRefused}`);
  return plan;
}

/**
 * Rescans the one skill whose file changed since the registry read it (StaleSkillError) and returns it
 * as the registry holds it now (undefined when it is gone). Throws like updateRegistry.
 */
export async function rescanSkill(skill: RegisteredSkill): Promise<RegisteredSkill | undefined> {
  await updateRegistry([{ path: skill.skillSource.file, kind: "content" }]);
  return (await getRegistry()).get(skill.name);
}

/**
 * Why a waiting call no longer matches what it was bound to (DESIGN.md "Dual-sign rules": the digest
 * is checked at every signature and confirmation; any mismatch voids the approval for good): the skill
 * is gone, its folder cannot be planned any more, or the call's digest recomputed from the console's
 * copy now differs — naming what changed when the frozen skill input is known (`scripts/lib.sh
 * changed`). A skill file changed since the registry loaded it is rescanned first (`rescanned`), so
 * the comparison is with the skill as it is now. Returns null when it still matches. Never throws.
 */
export async function digestMismatch(skill: RegisteredSkill | undefined, call: { id: string; args: string; digest: string | null }, frozenSkillInput: string | null = null, rescanned = false): Promise<string | null> {
  if (!skill) return "the skill is no longer registered, so what the call would run cannot be checked";
  if (call.digest === null) return null;
  let plan: CallPlan;
  try {
    plan = await planOnConsole(skill, await payloadText(call.id, "args", call.args));
  } catch (error) {
    // The skill file changed since the registry read it: rescan the skill once, then compare with
    // what it is now (naming what changed, the timeout as well as the file).
    if (error instanceof StaleSkillError && !rescanned) return digestMismatch(await rescanSkill(skill), call, frozenSkillInput, true);
    return `what the call would run cannot be checked any more: ${(error as Error).message}`;
  }
  if (plan.call.digest === call.digest) return null;
  return digestMismatchReason(frozenSkillInput, { input: plan.skill.input, callDigest: plan.call.digest }, call.digest);
}

import fs from "node:fs";
import path from "node:path";
import type { PackSkill } from "@/lib/types/pack";
import { db } from "../db";
import { config } from "../env";
import { packLayout } from "./pack-layout";

/**
 * The pack check of a call's plan (DESIGN.md "Skill packs": a pack whose files change on disk after
 * enabling shows as modified and its changed skills become unavailable until re-reviewed): when the
 * skill's folder lies in the installed packs, the enabled version of that pack must list the skill with
 * exactly `digest` (the digest just computed from the folder). Returns null when the skill is not a
 * pack's or matches, else the reason it cannot run.
 */
export async function packRefusal(skillName: string, folder: string, digest: string): Promise<string | null> {
  const installed = packLayout(config().packsPath).installed;
  // The loaders hold real paths: PACKS_PATH may name its folder through a link.
  let real = installed;
  try {
    real = fs.realpathSync(installed);
  } catch {
    // Not there yet: no skill can lie in it.
  }
  const root = [installed, real].map((candidate) => candidate + path.sep).find((candidate) => folder.startsWith(candidate));
  if (root === undefined) return null;
  const packName = folder.slice(root.length).split(path.sep)[0] ?? "";
  const enabled = await db().pack.findFirst({ where: { name: packName, status: "enabled" }, select: { version: true, skills: true } });
  if (!enabled) return `${skillName} lies in ${root}${packName}, which no enabled pack installed: enable a pack to run it`;
  const listed = (JSON.parse(enabled.skills) as PackSkill[]).find((skill) => skill.name === skillName && skill.change !== "removed");
  if (!listed) return `${skillName} is not a skill of pack ${packName} ${enabled.version} as it was enabled: review and enable the pack again`;
  if (listed.digest !== digest) return `${skillName} changed on disk since pack ${packName} ${enabled.version} was enabled (its digest is ${digest.slice(0, 12)}…, the enabled one ${listed.digest.slice(0, 12)}…): stage and enable the pack again to run it`;
  return null;
}

import type { PackSkill } from "@/lib/types/pack";
import { db } from "../db";
import { config, SCRIPT_SYSTEM_PATH } from "../env";
import { readSkillDigest } from "../skills/call-plan";
import { folderOfSkill, type RegisteredSkill } from "../skills/registered-skill";
import { installedPlaceIn, installedRoots, listedSkills, sharedFilesRefusal, wholePackRefusal, type EnabledPack } from "./pack-refusal";

/**
 * Each pack skill's digest by the skill object the loaders gave: a targeted rescan hands back the same
 * object for a skill none of whose folder changed (the memo voids an examination on any change at or
 * below its folder), so only what changed is digested again; a Rescan makes every object anew. Either
 * way every call's plan digests the folder as it is (packRefusal).
 */
const digests = new WeakMap<RegisteredSkill, string | null>();

function unavailable(skill: RegisteredSkill, reason: string): RegisteredSkill {
  return skill.available ? { ...skill, available: false, unavailableReason: reason } : skill;
}

/**
 * The skills as the registry offers them, with each skill of an installed pack checked against the
 * enabled version of its pack (DESIGN.md "Skill packs": a pack whose files change on disk after
 * enabling shows as modified and its changed skills become unavailable until re-reviewed) by the rules
 * of the call plan's check (packRefusal): a skill right in the packs folder, in a folder no enabled pack
 * installed, not listed by the enabled version, whose digest as its folder is now is not the listed
 * one, or whose pack's shared files changed, is kept but unavailable, with the reason. packRefusal
 * enforces this on the bytes each call runs; this makes the Skills page and the agent tools say so.
 * Reads the enabled packs only when a scanned skill lies in the packs folder. Never throws: a database
 * that cannot be read leaves every pack skill unavailable with the reason.
 */
export async function withPackState(skills: readonly RegisteredSkill[]): Promise<RegisteredSkill[]> {
  // The packs folder's real path once per scan: 10,000 realpaths cost a scan of 10,000 skills a second.
  const roots = installedRoots();
  const places = skills.map((skill) => installedPlaceIn(folderOfSkill(skill), roots));
  if (places.every((place) => place === null)) return [...skills];
  let enabled: Map<string, EnabledPack>;
  try {
    const rows = await db().pack.findMany({ where: { status: "enabled" }, select: { name: true, version: true, digestList: true, skills: true } });
    enabled = new Map(rows.map((row) => [row.name, { ...row, skills: JSON.parse(row.skills) as PackSkill[] }]));
  } catch (error) {
    const reason = `the enabled packs cannot be read (${(error as Error).message.split("\n").at(-1)}), so this pack skill cannot be checked`;
    return skills.map((skill, index) => (places[index] === null ? skill : unavailable(skill, reason)));
  }
  const settings = config();
  const planSettings = { scriptInterpreters: settings.scriptInterpreters, systemPath: SCRIPT_SYSTEM_PATH, limits: settings.skillFolderLimits };
  const sharedChecks = new Map<string, Promise<string | null>>();
  const result: RegisteredSkill[] = [];
  for (const [index, skill] of skills.entries()) {
    const place = places[index];
    if (!place) {
      result.push(skill);
      continue;
    }
    if (place.staging) {
      result.push(unavailable(skill, "it lies in PACKS_PATH but not among the installed packs (a staged version, the work folder)"));
      continue;
    }
    if (place.packName === "") {
      result.push(unavailable(skill, "it lies right in the installed packs folder, where no pack puts a skill"));
      continue;
    }
    const pack = enabled.get(place.packName);
    if (!pack) {
      result.push(unavailable(skill, `it lies in the installed packs folder, but no enabled pack named ${place.packName} installed it`));
      continue;
    }
    const listed = listedSkills(pack).find((candidate) => candidate.name === skill.name);
    if (!listed) {
      result.push(unavailable(skill, `pack ${pack.name} ${pack.version} was enabled without this skill: review and enable the pack again`));
      continue;
    }
    let digest = digests.get(skill);
    if (digest === undefined) {
      try {
        digest = (await readSkillDigest(skill, planSettings)).digest;
      } catch {
        digest = null;
      }
      digests.set(skill, digest);
    }
    if (digest !== listed.digest) {
      result.push(unavailable(skill, `its files changed on disk since pack ${pack.name} ${pack.version} was enabled: stage, review and enable the pack again`));
      continue;
    }
    const key = `${listed.class === "dangerous" ? "whole" : "shared"}\0${pack.name}`;
    if (!sharedChecks.has(key)) sharedChecks.set(key, listed.class === "dangerous" ? wholePackRefusal(place.packFolder, pack) : sharedFilesRefusal(place.packFolder, pack));
    const shared = await sharedChecks.get(key)!;
    result.push(shared === null ? skill : unavailable(skill, `${shared}: stage, review and enable the pack again`));
  }
  return result;
}

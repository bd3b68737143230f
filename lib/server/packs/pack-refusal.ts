import fs from "node:fs";
import path from "node:path";
import type { PackSkill } from "@/lib/types/pack";
import { db } from "../db";
import { config } from "../env";
import { isUnderRoot } from "../skills/allowlist-roots";
import { packLayout } from "./pack-layout";
import { changedPathsOfLines, digestListBody, sharedLines } from "./pack-signature";
import { packDigestList, PACK_ENTRY_LIMITS, readFolderEntries } from "./pack-tree";

/**
 * Where a folder lies in PACKS_PATH: in the installed packs (the pack folder's path and the pack's name,
 * "" right in the installed folder itself), or elsewhere in it (`staging`: a stored version, the work
 * folder — never a skill that may run, whatever walked it).
 */
export interface InstalledPlace {
  packFolder: string;
  packName: string;
  staging?: true;
}

/** The folders installedPlaceIn compares with: PACKS_PATH and its installed folder, each as configured and as its real path. */
export interface PacksRoots {
  packs: string[];
  installed: string[];
}

/**
 * PACKS_PATH and its installed packs folder as configured and as their real paths (PACKS_PATH may
 * name its folder through a link; the loaders hold real paths), read once (a realpath system call
 * each) for as many folders as the caller places with installedPlaceIn.
 */
export function installedRoots(): PacksRoots {
  const packsPath = config().packsPath;
  const installed = packLayout(packsPath).installed;
  const real = (folder: string) => {
    try {
      return fs.realpathSync.native(folder);
    } catch {
      return folder;
    }
  };
  return { packs: [...new Set([packsPath, real(packsPath)])], installed: [...new Set([installed, real(installed)])] };
}

/**
 * Whether `folder` (a real path) lies at or under the installed packs folder, and in which pack (a
 * skill right in that folder belongs to no pack: `packName` ""), or elsewhere at or under PACKS_PATH
 * (`staging`). Returns null for a folder outside PACKS_PATH. Pure.
 */
export function installedPlaceIn(folder: string, roots: PacksRoots): InstalledPlace | null {
  for (const root of roots.installed) {
    if (folder === root) return { packFolder: root, packName: "" };
    if (folder.startsWith(root + path.sep)) {
      const packName = folder.slice(root.length + 1).split(path.sep)[0] ?? "";
      return { packFolder: path.join(root, packName), packName };
    }
  }
  const packs = roots.packs.find((root) => folder === root || isUnderRoot(root, folder));
  return packs === undefined ? null : { packFolder: packs, packName: "", staging: true };
}

/** installedPlaceIn with the installed packs folder read now (one folder to place). */
export function installedPlaceOf(folder: string): InstalledPlace | null {
  return installedPlaceIn(folder, installedRoots());
}

/** An enabled pack version as the checks need it. */
export interface EnabledPack {
  name: string;
  version: string;
  digestList: string;
  skills: PackSkill[];
}

/** The skills an enabled version lists (not those it removed). */
export function listedSkills(pack: Pick<EnabledPack, "skills">): PackSkill[] {
  return pack.skills.filter((skill) => skill.change !== "removed");
}

/**
 * How an installed pack folder differs from the digest-list lines `expected`: the paths whose files
 * differ (none: the same), reading it (bounded by PACK_MAX_BYTES) without what `skip` names, or why it
 * cannot be read. Never throws.
 */
export async function installedDifferences(packFolder: string, expected: readonly string[], skip?: (relative: string) => boolean): Promise<{ changed: string[] } | { unreadable: string }> {
  let found: string[];
  try {
    found = digestListBody(packDigestList(await readFolderEntries(packFolder, { maxBytes: config().packMaxBytes, ...PACK_ENTRY_LIMITS }, skip)));
  } catch (error) {
    return { unreadable: (error as Error).message };
  }
  return { changed: changedPathsOfLines(expected, found) };
}

function listed(paths: readonly string[]): string {
  return `${paths.slice(0, 5).join(", ")}${paths.length > 5 ? ", …" : ""}`;
}

/**
 * Why the files an installed pack's skills share (everything outside the enabled version's skill
 * folders: pack.json, a `lib/`, a README another script sources, a folder added by hand) are not the
 * enabled version's, or null when they are. Reads the installed pack folder, skipping its skill
 * folders (each skill's own folder is its digest's business). A folder that cannot be read counts as
 * changed.
 */
export async function sharedFilesRefusal(packFolder: string, pack: EnabledPack): Promise<string | null> {
  const folders = listedSkills(pack).map((skill) => skill.folder);
  const differences = await installedDifferences(packFolder, sharedLines(pack.digestList, folders), (relative) => folders.includes(relative));
  if ("unreadable" in differences) return `the installed files of pack ${pack.name} cannot be read (${differences.unreadable})`;
  if (differences.changed.length === 0) return null;
  return `files pack ${pack.name} ${pack.version} shares among its skills changed on disk since it was enabled (${listed(differences.changed)})`;
}

/**
 * The pack check of a call's plan (DESIGN.md "Skill packs": a pack whose files change on disk after
 * enabling shows as modified and its changed skills become unavailable until re-reviewed): a skill
 * whose folder lies at or under the installed packs folder runs only when the enabled version of its
 * pack lists it with exactly `digest` (the digest just computed from its folder) and the files its
 * pack's skills share are the enabled version's (for a dangerous skill: every file of its pack,
 * wholePackRefusal). A skill right in the packs folder, in its staging area, or in a folder no
 * enabled pack installed, never runs. Returns null when the skill is not a pack's or passes, else the
 * reason it cannot run.
 */
export async function packRefusal(skillName: string, folder: string, digest: string): Promise<string | null> {
  const place = installedPlaceOf(folder);
  if (place === null) return null;
  if (place.staging) return `${skillName} lies in ${place.packFolder} but not among the installed packs (a staged version, the work folder): it never runs`;
  if (place.packName === "") return `${skillName} lies right in the installed packs folder, where no pack puts a skill: it never runs`;
  const row = await db().pack.findFirst({ where: { name: place.packName, status: "enabled" }, select: { name: true, version: true, digestList: true, skills: true } });
  if (!row) return `${skillName} lies in ${place.packFolder}, which no enabled pack installed: enable a pack to run it`;
  const pack: EnabledPack = { ...row, skills: JSON.parse(row.skills) as PackSkill[] };
  const listed = listedSkills(pack).find((skill) => skill.name === skillName);
  if (!listed) return `${skillName} is not a skill of pack ${pack.name} ${pack.version} as it was enabled: review and enable the pack again`;
  if (listed.digest !== digest) return `${skillName} changed on disk since pack ${pack.name} ${pack.version} was enabled (its digest is ${digest.slice(0, 12)}…, the enabled one ${listed.digest.slice(0, 12)}…): stage and enable the pack again to run it`;
  const shared = listed.class === "dangerous" ? await wholePackRefusal(place.packFolder, pack) : await sharedFilesRefusal(place.packFolder, pack);
  return shared === null ? null : `${shared}: stage and enable the pack again to run ${skillName}`;
}

/**
 * Why an installed pack's files are not all the enabled version's, or null when every one is: a
 * dangerous skill runs only then, as it may read any file of its pack (a sibling's helper) where no
 * sandbox hides them. Reads the whole installed pack folder (bounded); one that cannot be read counts
 * as changed.
 */
export async function wholePackRefusal(packFolder: string, pack: EnabledPack): Promise<string | null> {
  const differences = await installedDifferences(packFolder, digestListBody(pack.digestList));
  if ("unreadable" in differences) return `the installed files of pack ${pack.name} cannot be read (${differences.unreadable})`;
  if (differences.changed.length === 0) return null;
  return `files of pack ${pack.name} ${pack.version} changed on disk since it was enabled (${listed(differences.changed)}), and a dangerous skill runs only while every file of its pack is the enabled version's`;
}

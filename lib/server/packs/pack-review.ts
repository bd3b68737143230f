import path from "node:path";
import type { PackSkill, PackSkillChange } from "@/lib/types/pack";
import { SCRIPT_SYSTEM_PATH, type ConsoleConfig } from "../env";
import { PlanError, readSkillDigest } from "../skills/call-plan";
import { loadNativeSkills } from "../skills/native/native-loader";
import { folderOfSkill } from "../skills/registered-skill";
import { withSandboxAllowance } from "../skills/sandbox-allowance";
import { loadSubprocessSkills } from "../skills/subprocess-loader";
import { sharedLines } from "./pack-signature";
import { PackError, type PackEntry } from "./pack-tree";

/** The settings a review reads (the loaders', the digest's and the sandbox allowance's). */
export type ReviewSettings = Pick<ConsoleConfig, "defaultTimeoutSeconds" | "scriptInterpreters" | "skillFolderLimits" | "sandboxAllowPaths" | "sandboxHiddenPaths" | "bundledSkillsDir">;

/** A pack's skill as staged, before it is compared with the enabled version. */
export type ReviewedSkill = Omit<PackSkill, "change">;

/** How many loader refusals a staging refusal quotes. */
const QUOTED_REFUSALS = 5;

/**
 * The skills of a stored pack version, as the console will load them once it is installed (DESIGN.md
 * "Skill packs": the review shows every skill, its kind, class, sandbox declaration, secrets needed and
 * digest). `versionRoot` is the folder holding the pack's folder (`versions/<id>`), laid out as
 * `installed/` will be, so each skill's digest — which names paths relative to its root — is the digest
 * calls of it will be bound to. Both loaders run over it; any manifest they fail or skip (a broken
 * manifest, a duplicate name, a folder they would not follow), a SKILL.md where no skill lives, or no
 * skill at all refuses the pack. Throws PackError with the reasons.
 */
export async function reviewPackSkills(versionRoot: string, packName: string, entries: readonly PackEntry[], settings: ReviewSettings): Promise<ReviewedSkill[]> {
  const quiet = () => undefined;
  const subprocess = await loadSubprocessSkills([versionRoot], { defaultTimeoutSeconds: settings.defaultTimeoutSeconds, log: quiet });
  const native = await loadNativeSkills(versionRoot, { defaultTimeoutSeconds: settings.defaultTimeoutSeconds, taken: new Set(subprocess.skills.map((skill) => skill.name)), log: quiet });
  const refusals = [...subprocess.report.failed, ...subprocess.report.skipped, ...native.report.failed, ...native.report.skipped].map(
    // Paths as the pack names them: the staging folder is nobody's business.
    (entry) => `${path.relative(versionRoot, entry.path) || entry.path}: ${(entry.reason ?? "refused by the loader").split(`${versionRoot}${path.sep}`).join("")}`,
  );
  const skills = [...subprocess.skills, ...native.skills];
  const packFolder = path.join(versionRoot, packName);
  const nativeFolders = new Set(native.skills.map((skill) => path.relative(packFolder, skill.skillDir)));
  for (const entry of entries) {
    if (entry.kind === "file" && path.posix.basename(entry.path).toLowerCase() === "skill.md" && !nativeFolders.has(path.posix.dirname(entry.path))) {
      refusals.push(`${entry.path}: a SKILL.md outside a skill folder at the pack's top (<skill>/SKILL.md) would never be loaded`);
    }
  }
  if (refusals.length > 0) {
    const more = refusals.length > QUOTED_REFUSALS ? ` (and ${refusals.length - QUOTED_REFUSALS} more)` : "";
    throw new PackError(`the loader refuses ${refusals.length === 1 ? "a skill" : `${refusals.length} skills`} of the pack: ${refusals.slice(0, QUOTED_REFUSALS).join("; ")}${more}`);
  }
  if (skills.length === 0) throw new PackError("the pack holds no skill (a skill folder with skill.json, or <skill>/SKILL.md)");
  const allowance = { paths: settings.sandboxAllowPaths, bundledDir: settings.bundledSkillsDir, hidden: settings.sandboxHiddenPaths };
  const reviewed: ReviewedSkill[] = [];
  for (const loaded of skills) {
    const skill = withSandboxAllowance(loaded, allowance);
    let digest: string;
    try {
      digest = (await readSkillDigest(skill, { scriptInterpreters: settings.scriptInterpreters, systemPath: SCRIPT_SYSTEM_PATH, limits: settings.skillFolderLimits })).digest;
    } catch (error) {
      if (error instanceof PlanError) throw new PackError(`skill ${skill.name} cannot be bound to a call: ${error.message}`);
      throw error;
    }
    reviewed.push({
      name: skill.name,
      kind: skill.kind,
      class: skill.class,
      description: skill.description,
      folder: path.relative(packFolder, folderOfSkill(skill)).split(path.sep).join("/"),
      sandbox: skill.sandbox,
      secrets: [...skill.secretsNeeded],
      unavailableReason: skill.available ? null : skill.unavailableReason,
      digest,
    });
  }
  return reviewed.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * Each skill of a version against the version enabled now (none: every skill `added`): `added`,
 * `changed` (another digest, or `sharedChanged`: the files the pack's skills share — outside every
 * skill folder, pack.json aside — differ, and any skill may read them), `same`, and the enabled
 * version's skills this one lacks as `removed`. Sorted by name. Pure.
 */
export function compareSkills(staged: readonly ReviewedSkill[], enabled: readonly ReviewedSkill[] | null, sharedChanged = false): PackSkill[] {
  const before = new Map((enabled ?? []).map((skill) => [skill.name, skill]));
  const result: PackSkill[] = staged.map((skill) => {
    const old = before.get(skill.name);
    const change: PackSkillChange = !old ? "added" : old.digest === skill.digest && !sharedChanged ? "same" : "changed";
    return { ...skill, change };
  });
  for (const old of enabled ?? []) if (!staged.some((skill) => skill.name === old.name)) result.push({ ...old, change: "removed" });
  return result.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * Whether the files a pack's skills share differ between two versions (DESIGN.md "Skill packs": a
 * change a skill's own digest does not cover, such as a `lib/` its scripts source, still changes what
 * it runs): the digest-list lines outside each version's skill folders, `pack.json` left out (it
 * names the version). Pure.
 */
export function sharedFilesChanged(staged: { digestList: string; folders: readonly string[] }, enabled: { digestList: string; folders: readonly string[] } | null): boolean {
  if (enabled === null) return false;
  return sharedLines(staged.digestList, staged.folders, false).join("\n") !== sharedLines(enabled.digestList, enabled.folders, false).join("\n");
}

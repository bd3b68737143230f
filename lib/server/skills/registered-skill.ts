import type { NativeResources, NativeToolDeclaration, Skill, SkillClass } from "@/lib/types/skill";

/**
 * The skill file the loader read a skill from (skill.json, SKILL.md): its real path and the SHA-256 of
 * the bytes it parsed. A call's plan reads the skill's folder again and refuses when that file is no
 * longer those bytes: the class, schema and sandbox the policy judged by are the ones that run.
 */
export interface SkillSource {
  file: string;
  sha256: string;
}

/**
 * A subprocess skill as the registry holds it: the public Skill plus what only the server may know —
 * the canonical (realpath) entry executable and the folder the child runs in (seed 000 wire protocol:
 * the working directory is the skill's folder, i.e. the manifest's folder).
 */
export interface SubprocessSkill extends Skill {
  kind: "subprocess";
  /** realpath of the entry executable; always under `source.root`. */
  entryPath: string;
  /** Folder holding skill.json; the child's working directory. */
  workingDirectory: string;
  /** The skill.json the loader parsed (SkillSource). */
  skillSource: SkillSource;
}

/**
 * A native (SKILL.md) skill as the registry holds it (seed 004, DESIGN.md "Native skills"): the public
 * Skill with every native field filled in, plus the server-only paths. Its `schema` is the args of
 * `skill_run_script` (runScriptSchema: `{script, args}`), so a native skill runs through the same call
 * path as a subprocess one; its `class` is the class its scripts run under (`declaredClass` ?? mutating).
 */
export interface NativeSkill extends Skill {
  kind: "native";
  whenToUse: string | null;
  tools: NativeToolDeclaration[];
  resources: NativeResources;
  specDeviations: string[];
  declaredClass: SkillClass | null;
  frontmatter: Record<string, unknown>;
  /** The markdown body of SKILL.md (level 2), frontmatter removed. */
  instructions: string;
  /** realpath of the skill's folder; every resource and script must resolve under it. */
  skillDir: string;
  /** realpath of the SKILL.md (or skill.md) file; hashed into a call's digest. */
  skillFile: string;
  /** The SKILL.md the loader parsed (SkillSource). */
  skillSource: SkillSource;
}

/** Any skill the registry holds. */
export type RegisteredSkill = SubprocessSkill | NativeSkill;

/** The folder a skill lives in (real path): a native skill's folder, a subprocess skill's manifest folder. Pure. */
export function folderOfSkill(skill: RegisteredSkill): string {
  return skill.kind === "native" ? skill.skillDir : skill.workingDirectory;
}

/**
 * Strips server-only fields so a registered skill can be served as the public Skill shape. Level 1
 * (listings, the default) leaves out a native skill's instructions; level 2 (`GET /api/v1/skills/{name}`)
 * includes them (seed 004 progressive loading).
 */
export function toPublicSkill(skill: RegisteredSkill, level: 1 | 2 = 1): Skill {
  if (skill.kind === "subprocess") {
    const { entryPath: _entry, workingDirectory: _cwd, skillSource: _source, ...rest } = skill;
    return rest;
  }
  const { skillDir: _dir, skillFile: _file, skillSource: _source, instructions, ...rest } = skill;
  return level === 2 ? { ...rest, instructions } : rest;
}

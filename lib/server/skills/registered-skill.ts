import type { Skill } from "@/lib/types/skill";

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
}

/** Any skill the registry holds. Native (SKILL.md) skills join this union in a later issue. */
export type RegisteredSkill = SubprocessSkill;

/** Strips server-only fields so a registered skill can be served as the public Skill shape. */
export function toPublicSkill(skill: RegisteredSkill): Skill {
  const { entryPath: _entry, workingDirectory: _cwd, ...rest } = skill;
  return rest;
}

/**
 * True when two registered versions of a skill would run the same way under the same policy: same
 * entry, folder, root, class, timeout, env_allow and args schema. Used just before spawning a call
 * that waited for a slot: if a reload changed any of these since the call was validated and
 * authorised, the call must not run the new version (DESIGN.md "Policy": a call runs only what was
 * authorised).
 */
export function sameExecution(a: SubprocessSkill, b: SubprocessSkill): boolean {
  return (
    a.entryPath === b.entryPath &&
    a.workingDirectory === b.workingDirectory &&
    a.source.root === b.source.root &&
    a.class === b.class &&
    a.timeoutSeconds === b.timeoutSeconds &&
    a.envAllow.length === b.envAllow.length &&
    a.envAllow.every((name, index) => name === b.envAllow[index]) &&
    JSON.stringify(a.schema) === JSON.stringify(b.schema)
  );
}

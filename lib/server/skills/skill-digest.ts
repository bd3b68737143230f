import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { createHash } from "node:crypto";
import canonicalize from "canonicalize";
import type { SandboxDeclaration } from "../executor/sandbox/sandbox-declaration";
import { pieceEnd } from "../utf16-slices";
import type { RegisteredSkill } from "./registered-skill";
import type { SkillFolderContent } from "./skill-folder";

/** Version of the digest input's shape; a change of shape changes every digest. */
export const SKILL_DIGEST_VERSION = 2;

/** A subprocess skill's entry that lies outside its folder (under the same allow-list root). */
export interface OutsideEntry {
  /** The entry's path relative to the allow-list root (never absolute: copies on other hosts match). */
  path: string;
  executable: boolean;
  sha256: string;
}

/**
 * What a skill's digest covers (DESIGN.md "Workers and the sandbox": the whole folder by content —
 * relative names, bytes, the executable bit — its manifest or frontmatter, env_allow, timeout and
 * sandbox declaration; never the absolute path, so identical copies on two hosts have one digest).
 * `files` lists every entry as `[path, kind, hash]`: kind `f` (file), `x` (executable file), `d`
 * (folder, hash ""), `l` (link, hash = its target text).
 */
export interface SkillDigestInput {
  v: number;
  name: string;
  kind: RegisteredSkill["kind"];
  class: RegisteredSkill["class"];
  timeoutSeconds: number;
  envAllow: string[];
  sandbox: SandboxDeclaration;
  /** Subprocess: the entry relative to the folder (`run.sh`), or `null` when it lies outside it. Native: null. */
  entry: string | null;
  outsideEntry: OutsideEntry | null;
  files: Array<[string, "f" | "x" | "d" | "l", string]>;
}

/** A skill's digest: SHA-256 (hex) of the RFC 8785 canonical JSON of its input. */
export interface SkillDigest {
  digest: string;
  input: SkillDigestInput;
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/**
 * The digest of a skill from its folder's content as just read (readSkillFolder) and, for a subprocess
 * skill whose entry is outside the folder, that entry's hash. Pure: the same content gives the same
 * digest on any host. Returns `{digest, input}`.
 */
export function digestSkill(skill: RegisteredSkill, content: SkillFolderContent, entry: { inside: string | null; outside: OutsideEntry | null }): SkillDigest {
  const files: SkillDigestInput["files"] = content.entries.map((item) => {
    if (item.kind === "dir") return [item.path, "d", ""];
    if (item.kind === "link") return [item.path, "l", item.target];
    return [item.path, item.executable ? "x" : "f", item.sha256];
  });
  const input: SkillDigestInput = {
    v: SKILL_DIGEST_VERSION,
    name: skill.name,
    kind: skill.kind,
    class: skill.class,
    timeoutSeconds: skill.timeoutSeconds,
    envAllow: [...skill.envAllow],
    sandbox: skill.sandbox,
    entry: entry.inside,
    outsideEntry: entry.outside,
    files,
  };
  return { digest: sha256(canonicalize(input) ?? ""), input };
}

/** What a call's digest covers: the skill, the digest of the skill it is bound to, and its exact args. */
export interface CallDigestInput {
  skill: string;
  skillDigest: string;
  args: unknown;
}

/** A call's digest: SHA-256 (hex) of `text`, the canonical JSON of `{skill, skillDigest, args}`. */
export interface CallDigest {
  digest: string;
  text: string;
}

/** Longest slice of args (UTF-16 code units) hashed in one go by digestCall: a few ms of the event loop. */
const HASH_SLICE_LENGTH = 1024 * 1024;

/**
 * The digest a call is bound to (DESIGN.md "Dual-sign rules": the exact canonical args and what the
 * skill is — its folder's content, manifest, env_allow, timeout and sandbox declaration — through its
 * skill digest): SHA-256 of the canonical JSON (RFC 8785) of `{skill, skillDigest, args}`. `argsJson`
 * is the call's stored args text, which checkArgs made canonical already; the document is composed
 * around it as canonicalize would write it (keys `args` < `skill` < `skillDigest`), so the args are
 * neither parsed nor canonicalized again (issue 10 point 1: once per call, never on the main thread for
 * large args). Args longer than HASH_SLICE_LENGTH are hashed a slice at a time, the event loop free
 * between slices (8 MB hashed at once held it ~20 ms); a slice never ends between the two halves of a
 * surrogate pair, so the bytes hashed are the UTF-8 of the whole text. A text that is not canonical
 * simply gives another digest, so it cannot match an approval made on the canonical one. Resolves to
 * `{digest, text}`; never rejects.
 */
export async function digestCall(skill: string, skillDigest: string, argsJson: string): Promise<CallDigest> {
  const head = `{"args":`;
  const tail = `,"skill":${JSON.stringify(skill)},"skillDigest":${JSON.stringify(skillDigest)}}`;
  const hash = createHash("sha256").update(head);
  for (let start = 0; start < argsJson.length; ) {
    const end = pieceEnd(argsJson, start, HASH_SLICE_LENGTH);
    hash.update(start === 0 && end === argsJson.length ? argsJson : argsJson.slice(start, end));
    start = end;
    if (start < argsJson.length) await yieldToEventLoop();
  }
  hash.update(tail);
  return { digest: hash.digest("hex"), text: `${head}${argsJson}${tail}` };
}

const PART_NAMES: Record<string, string> = {
  class: "the class",
  timeoutSeconds: "the timeout",
  envAllow: "env_allow",
  sandbox: "the sandbox declaration",
  entry: "the entry",
  outsideEntry: "the entry file",
};

/**
 * Names what differs between two digest inputs of one skill, for a refusal's reason: e.g.
 * `scripts/lib.sh changed`, `run.sh was added`, `the sandbox declaration changed`. At most five file
 * names are listed. Returns "" when the inputs are equal. Pure.
 */
export function describeSkillChange(before: SkillDigestInput, after: SkillDigestInput): string {
  const parts: string[] = [];
  for (const key of Object.keys(PART_NAMES)) {
    const k = key as keyof SkillDigestInput;
    if (canonicalize(before[k]) !== canonicalize(after[k])) parts.push(`${PART_NAMES[key]} changed`);
  }
  const was = new Map(before.files.map(([file, kind, hash]) => [file, `${kind}:${hash}`]));
  const now = new Map(after.files.map(([file, kind, hash]) => [file, `${kind}:${hash}`]));
  const files: string[] = [];
  for (const [file, value] of now) {
    if (!was.has(file)) files.push(`${file} was added`);
    else if (was.get(file) !== value) files.push(`${file} changed`);
  }
  for (const file of was.keys()) if (!now.has(file)) files.push(`${file} was removed`);
  parts.push(...files.slice(0, 5));
  if (files.length > 5) parts.push(`and ${files.length - 5} more files`);
  return parts.join(", ");
}

/**
 * The reason a call no longer matches the digest it is bound to, in the one form the console and the
 * workers give it: what changed (named from the frozen skill digest input when there is one, e.g.
 * `scripts/lib.sh changed`) `since the call was requested (digest 1a2b3c4d5e6f… is now …)`. Pure.
 */
export function digestMismatchReason(frozenSkillInput: string | null, now: { input: SkillDigestInput; callDigest: string }, frozenCallDigest: string): string {
  let what = "what the call runs changed";
  if (frozenSkillInput) {
    try {
      const named = describeSkillChange(JSON.parse(frozenSkillInput) as SkillDigestInput, now.input);
      if (named !== "") what = named;
    } catch {
      // An unreadable frozen input only makes the reason less specific.
    }
  }
  return `${what} since the call was requested (digest ${frozenCallDigest.slice(0, 12)}… is now ${now.callDigest.slice(0, 12)}…)`;
}

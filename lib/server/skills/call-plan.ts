import { createHash } from "node:crypto";
import { constants as fsConstants, readlinkSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { chooseInterpreter } from "../executor/script-interpreter";
import { isUnderRoot } from "./allowlist-roots";
import type { RegisteredSkill } from "./registered-skill";
import { digestCall, digestSkill, type CallDigest, type OutsideEntry, type SkillDigest } from "./skill-digest";
import { DEFAULT_SKILL_FOLDER_LIMITS, readSkillFolder, SkillFolderError, type SkillFolderContent, type SkillFolderEntry, type SkillFolderLimits } from "./skill-folder";

/**
 * Exactly what one call of a skill runs, and the digests that bind it (DESIGN.md "Workers and the
 * sandbox", "Dual-sign rules"), computed in one step from one read of the skill's folder. Paths are the
 * live folder's: a sandbox binds the call's snapshot there, so the same paths name the snapshot's bytes.
 */
export interface CallPlan {
  skill: SkillDigest;
  call: CallDigest;
  /** The folder the skill lives in (realpath): its snapshot is bound here. */
  folder: string;
  /** The folder's content as read, with the bytes of every file when the plan was made with `keepBytes`. */
  content: SkillFolderContent;
  /** A subprocess entry outside `folder`: its realpath and bytes (bound alone at that path). */
  outsideEntry: (OutsideEntry & { realpath: string; bytes: Buffer | null }) | null;
  /** Absolute path of the program: the entry, or an interpreter found on the fixed system PATH. */
  command: string;
  /** argv after the command: none for subprocess skills; the interpreter's flags, the script and the call's args for scripts. */
  args: string[];
  /** Written to stdin: the args JSON for subprocess skills, nothing for scripts. */
  stdin: string;
  /** How stdout is read: one JSON object (subprocess skills) or text (scripts). */
  output: "json-object" | "text";
  /** How the timeline's start line names what runs, e.g. `/usr/bin/python3 scripts/analyze.py`. */
  label: string;
}

/** Settings a plan depends on. */
export interface PlanSettings {
  /** SKILL_SCRIPT_INTERPRETERS. */
  scriptInterpreters: readonly string[];
  /** The fixed system PATH interpreters are looked up on. */
  systemPath: string;
  limits?: SkillFolderLimits;
  /** Keep every file's bytes (a worker about to snapshot them); otherwise only what planning needs. */
  keepBytes?: boolean;
}

/** Why a call cannot be planned: a script outside scripts/, an interpreter outside the allow-list, a folder too big to hash. */
export class PlanError extends Error {}

/**
 * The skill file (skill.json, SKILL.md) is no longer the bytes the loader parsed: the registry's class,
 * schema and sandbox, which the policy judged the call by, may not be those of the folder that would
 * run. The caller rescans the skill (or refuses the call); nothing is planned from a stale record.
 */
export class StaleSkillError extends PlanError {}

/**
 * Plans one call of `skill` with its validated args text (`argsJson`): reads the skill's folder once
 * (readSkillFolder: bounded, no FIFO or device, links recorded not followed), computes the skill's
 * digest and the call's digest from those bytes, and decides what runs. A subprocess skill runs its
 * entry with the args on stdin. A native skill runs `args.script`, a file under its `scripts/` folder —
 * resolved inside the content just read, links followed only within `scripts/` — under the
 * interpreter its shebang (from the same bytes) or extension names, from SKILL_SCRIPT_INTERPRETERS on
 * the fixed system PATH, with `args.args` as argv (seed 004 task 6). Used by the console once per
 * request and by the worker again just before spawning, on its own copy. Throws PlanError with the
 * reason.
 */
export async function planCall(skill: RegisteredSkill, argsJson: string, settings: PlanSettings): Promise<CallPlan> {
  if (skill.kind === "subprocess") return planSubprocess(skill, argsJson, settings);
  return planScript(skill, argsJson, settings);
}

async function readFolder(folder: string, settings: PlanSettings, keep?: (relative: string) => boolean): Promise<SkillFolderContent> {
  try {
    return await readSkillFolder(folder, { keepBytes: settings.keepBytes === true ? true : (keep ?? false), limits: settings.limits });
  } catch (error) {
    if (error instanceof SkillFolderError) throw new PlanError(error.message);
    throw error;
  }
}

/** A skill's folder as read once: its content, its digest and, for a subprocess skill, where its entry is. */
interface ReadSkill {
  content: SkillFolderContent;
  digest: SkillDigest;
  outsideEntry: CallPlan["outsideEntry"];
}

/**
 * Reads a skill's folder (and a subprocess entry outside it) once and digests it. `keep` chooses the
 * files whose bytes are kept besides `settings.keepBytes`. Throws PlanError.
 */
async function readSkill(skill: RegisteredSkill, settings: PlanSettings, keep?: (relative: string) => boolean): Promise<ReadSkill> {
  if (skill.kind === "native") {
    const content = await readFolder(skill.skillDir, settings, keep);
    refuseLinksOut(content, skill.skillDir, null);
    await checkSkillSource(skill, skill.skillDir, content);
    return { content, digest: digestSkill(skill, content, { inside: null, outside: null }), outsideEntry: null };
  }
  const folder = skill.workingDirectory;
  const content = await readFolder(folder, settings, keep);
  refuseLinksOut(content, folder, skill.entryPath);
  await checkSkillSource(skill, folder, content);
  const inside = isUnderRoot(folder, skill.entryPath);
  const relative = path.relative(folder, skill.entryPath).split(path.sep).join("/");
  let outsideEntry: CallPlan["outsideEntry"] = null;
  if (inside) {
    const entry = findEntry(content.entries, relative);
    if (!entry || entry.kind !== "file") throw new PlanError(`entry ${skill.entryPath} is no longer a regular file in ${folder}`);
    if (!entry.executable) throw new PlanError(`entry ${skill.entryPath} is not executable`);
  } else {
    outsideEntry = await readOutsideEntry(skill.entryPath, skill.source.root, settings.keepBytes === true, settings.limits ?? DEFAULT_SKILL_FOLDER_LIMITS);
  }
  const outside = outsideEntry && { path: outsideEntry.path, executable: outsideEntry.executable, sha256: outsideEntry.sha256 };
  return { content, digest: digestSkill(skill, content, { inside: inside ? relative : null, outside }), outsideEntry };
}

/**
 * The digest of a skill as its folder is now (what a worker reports for each skill it holds, and the
 * console shows beside the workers' digests: DESIGN.md "drift is visible"). Throws PlanError when the
 * folder cannot be hashed (too big, a FIFO inside, unreadable).
 */
export async function readSkillDigest(skill: RegisteredSkill, settings: Omit<PlanSettings, "keepBytes">): Promise<SkillDigest> {
  return (await readSkill(skill, { ...settings, keepBytes: false })).digest;
}

async function planSubprocess(skill: Extract<RegisteredSkill, { kind: "subprocess" }>, argsJson: string, settings: PlanSettings): Promise<CallPlan> {
  const read = await readSkill(skill, settings);
  return {
    skill: read.digest,
    call: await digestCall(skill.name, read.digest.digest, argsJson),
    folder: skill.workingDirectory,
    content: read.content,
    outsideEntry: read.outsideEntry,
    command: skill.entryPath,
    args: [],
    stdin: argsJson,
    output: "json-object",
    label: skill.entryPath,
  };
}

/** Reads an entry that lies outside its skill's folder (still under the root): one regular executable file. */
async function readOutsideEntry(entryPath: string, root: string, keepBytes: boolean, limits: SkillFolderLimits): Promise<NonNullable<CallPlan["outsideEntry"]>> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(entryPath, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK);
  } catch (error) {
    throw new PlanError(`entry ${entryPath} cannot be opened: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  try {
    // O_NOFOLLOW guards the last component only: a folder on the path swapped for a link shows in
    // what the descriptor names, and such a file is refused, never hashed.
    const opened = readlinkSync(`/proc/self/fd/${handle.fd}`);
    if (opened !== entryPath) throw new PlanError(`entry ${entryPath} now resolves to ${opened}: a folder on its path was replaced by a link`);
    const stats = await handle.stat();
    if (!stats.isFile()) throw new PlanError(`entry ${entryPath} is no longer a regular file`);
    if ((stats.mode & 0o111) === 0) throw new PlanError(`entry ${entryPath} is not executable`);
    if (stats.size > limits.maxBytes) throw new PlanError(`entry ${entryPath} is larger than ${limits.maxBytes} bytes (SKILL_FOLDER_MAX_BYTES)`);
    const bytes = await handle.readFile();
    return {
      path: path.relative(root, entryPath).split(path.sep).join("/"),
      executable: true,
      sha256: createHash("sha256").update(bytes).digest("hex"),
      realpath: entryPath,
      bytes: keepBytes ? bytes : null,
    };
  } finally {
    await handle.close();
  }
}

async function planScript(skill: Extract<RegisteredSkill, { kind: "native" }>, argsJson: string, settings: PlanSettings): Promise<CallPlan> {
  let args: { script?: unknown; args?: unknown };
  try {
    args = JSON.parse(argsJson) as { script?: unknown; args?: unknown };
  } catch {
    throw new PlanError("the call's args are not JSON");
  }
  const script = args.script;
  const argv = args.args === undefined ? [] : args.args;
  if (typeof script !== "string" || script === "") throw new PlanError("args.script must name one of the skill's scripts");
  if (!Array.isArray(argv) || !argv.every((value): value is string => typeof value === "string")) throw new PlanError("args.args must be an array of strings");
  if (argv.some((value) => value.includes("\0")) || script.includes("\0")) throw new PlanError("args must not contain NUL characters");
  const requested = path.posix.normalize(`scripts/${script}`);
  if (!requested.startsWith("scripts/") || requested.split("/").includes("..")) throw new PlanError(`script ${JSON.stringify(script)} is not under the skill's scripts/ folder`);

  const { content, digest: skillDigest } = await readSkill(skill, settings, (relative) => relative.startsWith("scripts/"));
  const target = resolveInside(content.entries, requested, "scripts/");
  if (typeof target === "string") throw new PlanError(target);
  const firstLine = (target.bytes ?? Buffer.alloc(0)).subarray(0, 256).toString("utf8").split(/\r?\n/, 1)[0] ?? "";
  const interpreter = chooseInterpreter({ name: target.path, firstLine }, settings.scriptInterpreters, settings.systemPath);
  if (typeof interpreter === "string") throw new PlanError(interpreter);
  const scriptPath = path.join(skill.skillDir, ...target.path.split("/"));
  return {
    skill: skillDigest,
    call: await digestCall(skill.name, skillDigest.digest, argsJson),
    folder: skill.skillDir,
    content,
    outsideEntry: null,
    command: interpreter.path,
    args: [...interpreter.flags, scriptPath, ...argv],
    stdin: "",
    output: "text",
    label: `${interpreter.path} ${target.path}`,
  };
}

/**
 * Refuses a link in the skill's folder that leads out of it (absolute, or climbing above the folder),
 * resolved as the kernel would: component by component, following every link it meets on the way
 * (so a chain of links each of which looks inside — `A -> B/..`, `B -> C/D`, `C/D -> ..` — is
 * followed to where it really ends). The digest covers a link's text, not what it names outside, so a
 * call bound to the folder could run bytes nobody approved (and outside a sandbox they would be
 * reached). The one exception is a link straight to the subprocess entry `entryPath` (realpath under
 * the same root), whose bytes the digest covers as the outside entry. Throws PlanError naming the link.
 */
function refuseLinksOut(content: SkillFolderContent, folder: string, entryPath: string | null): void {
  const byPath = new Map(content.entries.map((entry) => [entry.path, entry]));
  for (const entry of content.entries) {
    if (entry.kind !== "link") continue;
    if (entryPath !== null && path.resolve(path.dirname(path.join(folder, entry.path)), entry.target) === entryPath) continue;
    const parent = entry.path.split("/").slice(0, -1);
    if (resolveInFolder(byPath, folder, parent, entry.target, { links: 0 }) === null) {
      throw new PlanError(`${entry.path} in ${folder} is a link out of the skill's folder (to ${entry.target}): a call cannot be bound to what it names`);
    }
  }
}

/** Most links followed while resolving one link (the kernel's own limit is 40). */
const MAX_LINKS_FOLLOWED = 40;

/**
 * Where `target`, read in the folder `from` (components relative to the skill folder), ends up: its
 * components inside the folder, or null when it leaves the folder (an absolute path elsewhere, a `..`
 * above the folder, more than MAX_LINKS_FOLLOWED links).
 */
function resolveInFolder(byPath: ReadonlyMap<string, SkillFolderEntry>, folder: string, from: readonly string[], target: string, followed: { links: number }): string[] | null {
  let current: string[];
  if (path.isAbsolute(target)) {
    const absolute = path.resolve(target);
    if (absolute !== folder && !isUnderRoot(folder, absolute)) return null;
    current = [];
    target = path.relative(folder, absolute);
  } else {
    current = [...from];
  }
  for (const part of target.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (current.length === 0) return null;
      current.pop();
      continue;
    }
    const next = [...current, part];
    const found = byPath.get(next.join("/"));
    if (found?.kind === "link") {
      if (++followed.links > MAX_LINKS_FOLLOWED) return null;
      const resolved = resolveInFolder(byPath, folder, current, found.target, followed);
      if (resolved === null) return null;
      current = resolved;
    } else {
      current = next;
    }
  }
  return current;
}

/**
 * Throws StaleSkillError unless the skill file the loader parsed (skill.skillSource) is, in the folder
 * content just read, the same bytes: the file's entry when it lies in the folder (the very read the
 * digest is made of, so nothing can change between the check and the digest), else (a skill.json
 * linked from elsewhere in the root) the file read again. The class, schema and sandbox a call is
 * judged by are then those of the bytes it binds.
 */
async function checkSkillSource(skill: RegisteredSkill, folder: string, content: SkillFolderContent): Promise<void> {
  const { file, sha256 } = skill.skillSource;
  const relative = path.relative(folder, file).split(path.sep).join("/");
  let now: string | null;
  if (isUnderRoot(folder, file)) {
    const entry = findEntry(content.entries, relative);
    now = entry?.kind === "file" ? entry.sha256 : null;
  } else {
    try {
      const handle = await fs.open(file, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK);
      try {
        now = (await handle.stat()).isFile() ? createHash("sha256").update(await handle.readFile()).digest("hex") : null;
      } finally {
        await handle.close();
      }
    } catch {
      now = null;
    }
  }
  if (now !== sha256) throw new StaleSkillError(`${skill.name} changed on disk since it was loaded (${isUnderRoot(folder, file) ? relative : file} is not the file the loader read): it is being loaded again, retry`);
}

function findEntry(entries: readonly SkillFolderEntry[], relative: string): SkillFolderEntry | undefined {
  return entries.find((entry) => entry.path === relative);
}

/** Most links followed while resolving a script inside the folder's content. */
const MAX_LINK_HOPS = 8;

/**
 * Resolves `relative` within the folder's content, following links only while they stay under
 * `prefix` (seed 004: a script must resolve under the skill's scripts/ folder; a link out is refused).
 * Returns the regular file it names, or the reason.
 */
function resolveInside(entries: readonly SkillFolderEntry[], relative: string, prefix: string): Extract<SkillFolderEntry, { kind: "file" }> | string {
  let current = relative;
  for (let hop = 0; hop <= MAX_LINK_HOPS; hop++) {
    const entry = findEntry(entries, current);
    if (!entry) return `script ${relative.slice(prefix.length)} does not exist in the skill's scripts/ folder`;
    if (entry.kind === "file") return entry;
    if (entry.kind === "dir") return `script ${relative.slice(prefix.length)} is a folder, not a script`;
    if (path.posix.isAbsolute(entry.target)) return `script ${relative.slice(prefix.length)} is a link out of the skill's scripts/ folder (to ${entry.target})`;
    const next = path.posix.normalize(path.posix.join(path.posix.dirname(current), entry.target));
    if (!next.startsWith(prefix) || next.split("/").includes("..")) return `script ${relative.slice(prefix.length)} escapes the skill's scripts/ folder (it links to ${entry.target})`;
    current = next;
  }
  return `script ${relative.slice(prefix.length)} is a chain of more than ${MAX_LINK_HOPS} links`;
}

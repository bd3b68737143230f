import { constants as fsConstants, type Dirent } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import type { LoaderEntry, LoaderReport, LoaderRoot } from "@/lib/types/skill";
import { isUnderRoot, resolveRoot } from "../allowlist-roots";
import { createLoaderLog, describeFsError, loaderLine, type LoaderLog } from "../loader-log";
import type { NativeSkill } from "../registered-skill";
import { compareNames } from "../walk-manifests";
import { buildNativeSkill } from "./build-native-skill";
import { createHostProbe, type HostProbe } from "./host-requirements";
import { MAX_SKILL_FILE_BYTES, parseSkillMarkdown } from "./parse-skill-markdown";
import { specDeviations } from "./spec-deviations";

/** The instructions file of a native skill (Agent Skills spec); any other letter case (`skill.md`, `Skill.md`) is tolerated with a warning. */
export const SKILL_FILE = "SKILL.md";

/** True when `name` is SKILL.md in some letter case. */
export function isSkillFileName(name: string): boolean {
  return name.toLowerCase() === "skill.md";
}

/** Options of one native loader scan. */
export interface NativeLoaderOptions {
  /** Timeout (seconds) of a skill whose frontmatter gives none (SKILL_DEFAULT_TIMEOUT_SECONDS). */
  defaultTimeoutSeconds: number;
  /** Names already taken (the subprocess skills, loaded first); a native skill claiming one is skipped. Not modified. */
  taken?: ReadonlySet<string>;
  /** Where each log line is echoed as it happens; default console.log. */
  log?: (line: string) => void;
  /** How PATH, env and the platform are checked; default createHostProbe() (tests may pass their own). */
  probe?: HostProbe;
}

/** What a native scan produced: the registered skills in discovery order and the report (entries with kind "native"). */
export interface NativeLoadResult {
  skills: NativeSkill[];
  report: LoaderReport;
}

type Examined =
  | { outcome: "ignored" }
  | { outcome: "skipped"; path: string; reason: string; warnings: string[] }
  | { outcome: "failed"; path: string; name: string | null; reason: string; line: string; warnings: string[]; specDeviations?: string[] }
  | { outcome: "built"; skill: NativeSkill };

async function sortedEntries(dir: string, log: LoaderLog): Promise<Dirent[] | null> {
  try {
    const entries = await fs.readdir(dir, { withFileTypes: true });
    return entries.sort((a, b) => compareNames(a.name, b.name));
  } catch (error) {
    log.write(loaderLine.unreadableDirectory(dir, describeFsError(error)));
    return null;
  }
}

// Reads a SKILL.md whose realpath is known to be inside the skill folder: opened without following a
// final symlink and without blocking on a FIFO, checked to be a regular file of at most 1 MiB on the fd.
async function readSkillFile(realFile: string): Promise<{ ok: true; bytes: Buffer } | { ok: false; message: string }> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(realFile, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK);
  } catch (error) {
    return { ok: false, message: `cannot be opened: ${describeFsError(error)}` };
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return { ok: false, message: "is not a regular file" };
    if (stat.size > MAX_SKILL_FILE_BYTES) return { ok: false, message: `file is ${stat.size} bytes, larger than the ${MAX_SKILL_FILE_BYTES}-byte limit of a SKILL.md` };
    const buffer = Buffer.alloc(MAX_SKILL_FILE_BYTES + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > MAX_SKILL_FILE_BYTES) return { ok: false, message: `file is larger than the ${MAX_SKILL_FILE_BYTES}-byte limit of a SKILL.md` };
    }
    return { ok: true, bytes: buffer.subarray(0, length) };
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** Bytes read of a file that may look like a skill's (enough for its opening fence). */
const LOOKALIKE_SNIFF_BYTES = 512;

/** Most sub-folders of a folder without SKILL.md looked into for a SKILL.md one level too deep. */
const DEEPER_LOOKS = 100;

/**
 * A folder with no SKILL.md that holds a `SKILLS.md` (any case), or a `<folder>.md` opening with YAML
 * frontmatter (some repositories name their skill files so), or a sub-folder holding a SKILL.md (a skill
 * one level too deep, `<category>/<pack>/<skill>/SKILL.md`), is reported as skipped with the reason,
 * rather than left out silently; anything else is ignored. Never throws.
 */
async function lookalikeSkill(folderPath: string, folder: string, names: readonly Dirent[]): Promise<Examined> {
  const deeper = await deeperSkillFile(folderPath, names);
  if (deeper) return { outcome: "skipped", path: deeper, reason: `misplaced: native skills live in <skills path>/<category>/<skill>/${SKILL_FILE}, and this one sits a level deeper`, warnings: [] };
  return lookalikeFile(folderPath, folder, names);
}

/** The first SKILL.md (any case) in a non-hidden, non-symlinked sub-folder of `folderPath` (at most DEEPER_LOOKS looked into), or null. */
async function deeperSkillFile(folderPath: string, names: readonly Dirent[]): Promise<string | null> {
  let looked = 0;
  for (const entry of names) {
    if (!entry.isDirectory() || entry.name.startsWith(".")) continue;
    if (++looked > DEEPER_LOOKS) return null;
    const inner = await fs.readdir(path.join(folderPath, entry.name)).catch(() => [] as string[]);
    const found = inner.filter(isSkillFileName).sort(compareNames)[0];
    if (found) return path.join(folderPath, entry.name, found);
  }
  return null;
}

async function lookalikeFile(folderPath: string, folder: string, names: readonly Dirent[]): Promise<Examined> {
  for (const entry of names) {
    const lower = entry.name.toLowerCase();
    if (!entry.isFile() || (lower !== "skills.md" && lower !== `${folder.toLowerCase()}.md`)) continue;
    const file = path.join(folderPath, entry.name);
    let head = "";
    try {
      const handle = await fs.open(file, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK);
      try {
        const buffer = Buffer.alloc(LOOKALIKE_SNIFF_BYTES);
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
        head = buffer.subarray(0, bytesRead).toString("utf8");
      } finally {
        await handle.close().catch(() => undefined);
      }
    } catch {
      continue;
    }
    const frontmatter = /^\uFEFF?\s*---[ \t]*\r?\n/.test(head);
    // A SKILLS.md says by its name what it is meant to be; a <folder>.md only by its frontmatter.
    if (!frontmatter && lower !== "skills.md") continue;
    const what = frontmatter ? "has skill frontmatter" : "has no frontmatter";
    return { outcome: "skipped", path: file, reason: `${entry.name} ${what} but is not named ${SKILL_FILE}; not loaded (a native skill's file is ${SKILL_FILE})`, warnings: [] };
  }
  return { outcome: "ignored" };
}

async function examineSkillFolder(
  rootReal: string,
  category: string,
  folder: string,
  options: { defaultTimeoutSeconds: number; probe: HostProbe; log: LoaderLog },
): Promise<Examined> {
  const folderPath = path.join(rootReal, category, folder);
  const names = await sortedEntries(folderPath, options.log);
  if (!names) return { outcome: "ignored" };
  const warnings: string[] = [];
  // Entries are in byte order, so SKILL.md (uppercase sorts first) wins over skill.md and Skill.md.
  const spellings = names.filter((entry) => isSkillFileName(entry.name)).map((entry) => entry.name);
  // No SKILL.md in any case: a subprocess skill's folder (skill.json) or anything else; not a native
  // skill. One whose file only looks like a skill's is reported, never silently absent.
  if (spellings.length === 0) return lookalikeSkill(folderPath, folder, names);
  const fileName = spellings.includes(SKILL_FILE) ? SKILL_FILE : spellings[0]!;
  if (spellings.length > 1) warnings.push(`both ${spellings.join(" and ")} exist; using ${fileName}`);
  else if (fileName !== SKILL_FILE) warnings.push(`the file is named ${fileName}; the Agent Skills spec names it ${SKILL_FILE}`);
  const sourcePath = path.join(folderPath, fileName);
  const fail = (message: string, stage: "parse" | "build", name: string | null = null): Examined => ({
    outcome: "failed",
    path: sourcePath,
    name,
    reason: `${stage}: ${message}`,
    line: stage === "parse" || name === null ? loaderLine.parse(sourcePath, message) : loaderLine.build(name, message),
    warnings,
  });

  let skillDir: string;
  let skillFile: string;
  try {
    skillDir = await fs.realpath(folderPath);
    skillFile = await fs.realpath(sourcePath);
  } catch (error) {
    return fail(`cannot be resolved: ${describeFsError(error)}`, "parse");
  }
  if (!isUnderRoot(skillDir, skillFile)) return fail(`${fileName} is a symbolic link leading outside the skill folder`, "parse");
  const read = await readSkillFile(skillFile);
  if (!read.ok) return fail(read.message, "parse");
  const parsed = parseSkillMarkdown(read.bytes);
  if (!parsed.ok) {
    if (parsed.problem === "no_frontmatter") return { outcome: "skipped", path: sourcePath, reason: parsed.message, warnings };
    return fail(parsed.message, "parse");
  }
  const built = await buildNativeSkill({
    frontmatter: parsed.frontmatter,
    body: parsed.body,
    warnings: [...warnings, ...parsed.warnings],
    category,
    folderName: folder,
    skillDir,
    skillFile,
    sourcePath,
    root: rootReal,
    defaultTimeoutSeconds: options.defaultTimeoutSeconds,
    probe: options.probe,
  });
  if (!built.ok) {
    return {
      ...(fail(built.message, "build", built.name) as Extract<Examined, { outcome: "failed" }>),
      warnings: [...warnings, ...parsed.warnings],
      specDeviations: specDeviations(parsed.frontmatter, folder),
    };
  }
  return { outcome: "built", skill: built.skill };
}

/**
 * The native (SKILL.md) skill loader (seed 004, DESIGN.md "Native skills", issue 5 point 1). Walks
 * exactly `<skillsPath>/<category>/<skill>/` in lexical (byte) order, skipping dot folders and not
 * following symlinked folders (skipped and reported); a folder without SKILL.md (in any letter case) is not a
 * native skill and is ignored (a subprocess skill's folder, say) unless it holds a `SKILLS.md`, or a
 * `<folder>.md` opening with frontmatter (skipped and reported: it looks like a skill); a SKILL.md right under a
 * category folder is reported as misplaced. Each SKILL.md is parsed (parseSkillMarkdown) and built
 * (buildNativeSkill): no frontmatter → skipped; a parse error or no description → failed; a name taken
 * by `opts.taken` or by an earlier native skill → skipped (first wins); else registered, with one log
 * line per warning. A missing or unusable skills path is a skipped root. Never throws, so a broken
 * skill never blocks start-up. Returns the skills and a LoaderReport (entries with kind "native",
 * `count` = skills registered, `log` = every line, each also echoed to `opts.log`).
 */
export async function loadNativeSkills(skillsPath: string, opts: NativeLoaderOptions): Promise<NativeLoadResult> {
  const started = Date.now();
  const log = createLoaderLog(opts.log);
  const probe = opts.probe ?? createHostProbe();
  const taken = new Set(opts.taken ?? []);
  const firstSeen = new Map<string, string>();
  const skills: NativeSkill[] = [];
  const registered: LoaderEntry[] = [];
  const skipped: LoaderEntry[] = [];
  const failed: LoaderEntry[] = [];
  const roots: LoaderRoot[] = [];
  const finish = (): NativeLoadResult => ({
    skills,
    report: {
      loadedAt: new Date(started).toISOString(),
      durationMs: Date.now() - started,
      roots,
      registered,
      skipped,
      failed,
      log: log.lines,
      count: registered.length,
    },
  });

  try {
    const { usable, report: rootEntry } = await resolveRoot(skillsPath, [], log);
    roots.push(rootEntry);
    if (!usable) return finish();
    const rootReal = usable.real;
    const entry = (at: string, name: string | null, reason: string | null, warnings: string[], deviations?: string[]): LoaderEntry => ({
      path: at,
      root: rootReal,
      kind: "native",
      name,
      reason,
      warnings: [...warnings],
      ...(deviations ? { specDeviations: [...deviations] } : {}),
    });
    const skip = (at: string, name: string | null, reason: string, warnings: string[] = []) => {
      log.write(loaderLine.skippedNative(at, reason));
      skipped.push(entry(at, name, reason, warnings));
    };

    for (const categoryEntry of (await sortedEntries(rootReal, log)) ?? []) {
      if (categoryEntry.name.startsWith(".")) continue;
      if (!categoryEntry.isDirectory() && isSkillFileName(categoryEntry.name)) {
        skip(path.join(rootReal, categoryEntry.name), null, `misplaced: native skills live in <skills path>/<category>/<skill>/${SKILL_FILE}, and this one sits right under the skills path`);
        continue;
      }
      const categoryPath = path.join(rootReal, categoryEntry.name);
      if (categoryEntry.isSymbolicLink()) {
        if ((await fs.stat(categoryPath).catch(() => null))?.isDirectory()) skip(categoryPath, null, "category folder is a symbolic link; not followed");
        continue;
      }
      if (!categoryEntry.isDirectory()) continue;
      const skillEntries = (await sortedEntries(categoryPath, log)) ?? [];
      const misplaced = skillEntries.find((item) => isSkillFileName(item.name));
      if (misplaced) {
        skip(path.join(categoryPath, misplaced.name), null, `misplaced: native skills live in <skills path>/<category>/<skill>/${SKILL_FILE}, and this one sits right under the category folder`);
      }
      for (const skillEntry of skillEntries) {
        if (skillEntry.name.startsWith(".")) continue;
        const folderPath = path.join(categoryPath, skillEntry.name);
        if (skillEntry.isSymbolicLink()) {
          if ((await fs.stat(folderPath).catch(() => null))?.isDirectory()) skip(folderPath, null, "skill folder is a symbolic link; not followed");
          continue;
        }
        if (!skillEntry.isDirectory()) continue;
        let examined: Examined;
        try {
          examined = await examineSkillFolder(rootReal, categoryEntry.name, skillEntry.name, { defaultTimeoutSeconds: opts.defaultTimeoutSeconds, probe, log });
        } catch (error) {
          const message = `unexpected error: ${error instanceof Error ? error.message : String(error)}`;
          examined = { outcome: "failed", path: folderPath, name: null, reason: `parse: ${message}`, line: loaderLine.parse(folderPath, message), warnings: [] };
        }
        if (examined.outcome === "ignored") continue;
        if (examined.outcome === "skipped") {
          skip(examined.path, null, examined.reason, examined.warnings);
          continue;
        }
        if (examined.outcome === "failed") {
          log.write(examined.line);
          failed.push(entry(examined.path, examined.name, examined.reason, examined.warnings, examined.specDeviations));
          continue;
        }
        const { skill } = examined;
        if (taken.has(skill.name)) {
          const holder = firstSeen.get(skill.name);
          log.write(loaderLine.duplicate(skill.name, skill.source.path));
          skipped.push(
            entry(skill.source.path, skill.name, holder ? `name already registered from ${holder}` : "name already taken by a subprocess skill (subprocess skills load first)", skill.warnings, skill.specDeviations),
          );
          continue;
        }
        taken.add(skill.name);
        firstSeen.set(skill.name, skill.source.path);
        skills.push(skill);
        log.write(loaderLine.registeredNative(skill.name, skill.source.path));
        for (const warning of skill.warnings) log.write(loaderLine.warning(skill.name, skill.source.path, warning));
        registered.push(entry(skill.source.path, skill.name, null, skill.warnings, skill.specDeviations));
      }
    }
  } catch (error) {
    // A bug here must not block start-up: report what was loaded so far.
    log.write(loaderLine.unusableRoot(skillsPath, `native scan stopped: ${error instanceof Error ? error.message : String(error)}`));
  }
  return finish();
}

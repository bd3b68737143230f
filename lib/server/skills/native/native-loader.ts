import { createHash } from "node:crypto";
import fs, { constants as fsConstants, type Dirent } from "node:fs";
import path from "node:path";
import type { LoaderEntry, LoaderReport, LoaderRoot } from "@/lib/types/skill";
import { isUnderRoot, resolveRoot } from "../allowlist-roots";
import { createLoaderLog, describeFsError, loaderLine, type LoaderLog } from "../loader-log";
import type { NativeSkill } from "../registered-skill";
import { listSorted, type ScanMemo } from "../scan-memo";
import { compareNames } from "../walk-manifests";
import { WorkSlices } from "../work-slices";
import { buildNativeSkill } from "./build-native-skill";
import { createHostProbe, type HostProbe } from "./host-requirements";
import { MAX_FOLDER_ENTRIES, readFolderEntries } from "./list-resources";
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
  /**
   * Listings and examinations of earlier scans still valid (an incremental rescan: scan-memo.ts); what
   * this scan reads is kept there. Without it every folder is listed and every skill folder read.
   */
  memo?: ScanMemo;
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

/** Whether `link` (a symbolic link the walk found) leads to a folder: such a link is reported as not followed. */
function isFolderBehindLink(link: string): boolean {
  try {
    return fs.statSync(link, { throwIfNoEntry: false })?.isDirectory() ?? false;
  } catch {
    return false;
  }
}

/** `dir`'s entries sorted by name (through `memo` when given), or null with the line logged when it cannot be listed. */
function sortedEntries(dir: string, log: LoaderLog, memo: ScanMemo | undefined): Dirent[] | null {
  const listed = memo ? memo.listing(dir) : listSorted(dir);
  if ("error" in listed) {
    log.write(loaderLine.unreadableDirectory(dir, describeFsError(listed.error)));
    return null;
  }
  return listed.entries;
}

// Reads a SKILL.md whose realpath is known to be inside the skill folder: opened without following a
// final symlink and without blocking on a FIFO, checked to be a regular file of at most 1 MiB on the fd.
function readSkillFile(realFile: string): { ok: true; bytes: Buffer } | { ok: false; message: string } {
  let fd: number;
  try {
    fd = fs.openSync(realFile, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK);
  } catch (error) {
    return { ok: false, message: `cannot be opened: ${describeFsError(error)}` };
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) return { ok: false, message: "is not a regular file" };
    if (stat.size > MAX_SKILL_FILE_BYTES) return { ok: false, message: `file is ${stat.size} bytes, larger than the ${MAX_SKILL_FILE_BYTES}-byte limit of a SKILL.md` };
    // Sized by the stat, one byte over to see a file that grew since; grown (doubling) up to the limit
    // when it did. Not a 1 MiB buffer per file: 10,000 of them made a cold scan spend a quarter of
    // its time zero-filling and collecting them.
    let buffer = Buffer.allocUnsafe(stat.size + 1);
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        const grown = Buffer.allocUnsafe(Math.min(buffer.length * 2, MAX_SKILL_FILE_BYTES + 1));
        buffer.copy(grown, 0, 0, length);
        buffer = grown;
      }
      const bytesRead = fs.readSync(fd, buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > MAX_SKILL_FILE_BYTES) return { ok: false, message: `file is larger than the ${MAX_SKILL_FILE_BYTES}-byte limit of a SKILL.md` };
    }
    return { ok: true, bytes: buffer.subarray(0, length) };
  } catch (error) {
    return { ok: false, message: `cannot be read: ${describeFsError(error)}` };
  } finally {
    fs.closeSync(fd);
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
function lookalikeSkill(folderPath: string, folder: string, names: readonly Dirent[]): Examined {
  const deeper = deeperSkillFile(folderPath, names);
  if (deeper) return { outcome: "skipped", path: deeper, reason: `misplaced: native skills live in <skills path>/<category>/<skill>/${SKILL_FILE}, and this one sits a level deeper`, warnings: [] };
  return lookalikeFile(folderPath, folder, names);
}

/** The first SKILL.md (any case) in a non-hidden, non-symlinked sub-folder of `folderPath` (at most DEEPER_LOOKS looked into), or null. */
function deeperSkillFile(folderPath: string, names: readonly Dirent[]): string | null {
  let looked = 0;
  for (const entry of names) {
    if (!entry.isDirectory() || entry.name.startsWith(".")) continue;
    if (++looked > DEEPER_LOOKS) return null;
    let inner: string[];
    try {
      inner = fs.readdirSync(path.join(folderPath, entry.name));
    } catch {
      inner = [];
    }
    const found = inner.filter(isSkillFileName).sort(compareNames)[0];
    if (found) return path.join(folderPath, entry.name, found);
  }
  return null;
}

function lookalikeFile(folderPath: string, folder: string, names: readonly Dirent[]): Examined {
  for (const entry of names) {
    const lower = entry.name.toLowerCase();
    if (!entry.isFile() || (lower !== "skills.md" && lower !== `${folder.toLowerCase()}.md`)) continue;
    const file = path.join(folderPath, entry.name);
    let head = "";
    try {
      const fd = fs.openSync(file, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK);
      try {
        const buffer = Buffer.alloc(LOOKALIKE_SNIFF_BYTES);
        const bytesRead = fs.readSync(fd, buffer, 0, buffer.length, 0);
        head = buffer.subarray(0, bytesRead).toString("utf8");
      } finally {
        fs.closeSync(fd);
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
  options: { defaultTimeoutSeconds: number; probe: HostProbe; log: LoaderLog; slices: WorkSlices },
): Promise<Examined> {
  const folderPath = path.join(rootReal, category, folder);
  let names: Dirent[];
  try {
    const read = await readFolderEntries(folderPath, options.slices);
    // A folder of more names than any skill holds is reported, not read on (a bounded read and sort).
    if (read === null) return { outcome: "failed", path: folderPath, name: null, reason: `parse: the folder holds more than ${MAX_FOLDER_ENTRIES} entries`, line: loaderLine.parse(folderPath, `the folder holds more than ${MAX_FOLDER_ENTRIES} entries`), warnings: [] };
    names = read.sort((a, b) => compareNames(a.name, b.name));
  } catch (error) {
    options.log.write(loaderLine.unreadableDirectory(folderPath, describeFsError(error)));
    return { outcome: "ignored" };
  }
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
    skillDir = fs.realpathSync.native(folderPath);
    // A SKILL.md the folder lists as a regular file is its own realpath within it (readSkillFile opens
    // it with O_NOFOLLOW, so one swapped for a link since fails there); only a link is resolved.
    const listed = names.find((item) => item.name === fileName);
    skillFile = listed && !listed.isSymbolicLink() ? path.join(skillDir, fileName) : fs.realpathSync.native(sourcePath);
  } catch (error) {
    return fail(`cannot be resolved: ${describeFsError(error)}`, "parse");
  }
  if (!isUnderRoot(skillDir, skillFile)) return fail(`${fileName} is a symbolic link leading outside the skill folder`, "parse");
  const read = readSkillFile(skillFile);
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
    skillFileSha256: createHash("sha256").update(read.bytes).digest("hex"),
    sourcePath,
    root: rootReal,
    defaultTimeoutSeconds: options.defaultTimeoutSeconds,
    probe: options.probe,
    slices: options.slices,
    folderEntries: names,
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

    // In walk order: what the walk itself decided (a misplaced file, a symlinked folder), and the skill
    // folders to examine. Each folder is read with synchronous calls — a dozen thread-pool round trips
    // per folder made a cold scan of 10,000 skills spend most of its time waiting on them — and the
    // walk yields to the event loop every SLICE_MS (work-slices.ts). Each examination logs into its own
    // buffer, written out as it is registered.
    type Step = { kind: "skip"; at: string; reason: string } | { kind: "examine"; category: string; folder: string; folderPath: string };
    const steps: Step[] = [];
    const slices = new WorkSlices();
    const memo = opts.memo;
    for (const categoryEntry of sortedEntries(rootReal, log, memo) ?? []) {
      if (categoryEntry.name.startsWith(".")) continue;
      if (!categoryEntry.isDirectory() && isSkillFileName(categoryEntry.name)) {
        steps.push({ kind: "skip", at: path.join(rootReal, categoryEntry.name), reason: `misplaced: native skills live in <skills path>/<category>/<skill>/${SKILL_FILE}, and this one sits right under the skills path` });
        continue;
      }
      const categoryPath = path.join(rootReal, categoryEntry.name);
      if (categoryEntry.isSymbolicLink()) {
        if (isFolderBehindLink(categoryPath)) steps.push({ kind: "skip", at: categoryPath, reason: "category folder is a symbolic link; not followed" });
        continue;
      }
      if (!categoryEntry.isDirectory()) continue;
      await slices.check();
      const skillEntries = sortedEntries(categoryPath, log, memo) ?? [];
      const misplaced = skillEntries.find((item) => isSkillFileName(item.name));
      if (misplaced) {
        steps.push({ kind: "skip", at: path.join(categoryPath, misplaced.name), reason: `misplaced: native skills live in <skills path>/<category>/<skill>/${SKILL_FILE}, and this one sits right under the category folder` });
      }
      for (const skillEntry of skillEntries) {
        if (skillEntry.name.startsWith(".")) continue;
        const folderPath = path.join(categoryPath, skillEntry.name);
        if (skillEntry.isSymbolicLink()) {
          if (isFolderBehindLink(folderPath)) steps.push({ kind: "skip", at: folderPath, reason: "skill folder is a symbolic link; not followed" });
          continue;
        }
        if (!skillEntry.isDirectory()) continue;
        steps.push({ kind: "examine", category: categoryEntry.name, folder: skillEntry.name, folderPath });
      }
    }

    const examinedAt: Array<{ examined: Examined; lines: string[] } | undefined> = new Array(steps.length);
    for (const [at, step] of steps.entries()) {
      if (step.kind !== "examine") continue;
      // A skill folder examined before and untouched since (its memo entry depends on the folder: any
      // change in it voided the entry) is not read again.
      const remembered = memo?.recall<{ examined: Examined; lines: string[] }>("native", step.folderPath);
      if (remembered) {
        examinedAt[at] = remembered;
        continue;
      }
      const lines: string[] = [];
      const ownLog: LoaderLog = { lines, write: (line) => void lines.push(line) };
      let examined: Examined;
      try {
        examined = await examineSkillFolder(rootReal, step.category, step.folder, { defaultTimeoutSeconds: opts.defaultTimeoutSeconds, probe, log: ownLog, slices });
      } catch (error) {
        const message = `unexpected error: ${error instanceof Error ? error.message : String(error)}`;
        examined = { outcome: "failed", path: step.folderPath, name: null, reason: `parse: ${message}`, line: loaderLine.parse(step.folderPath, message), warnings: [] };
      }
      examinedAt[at] = { examined, lines };
      memo?.remember("native", step.folderPath, examinedAt[at], [step.folderPath]);
      await slices.check();
    }

    for (const [at, step] of steps.entries()) {
      if (at % 256 === 255) await slices.check();
      if (step.kind === "skip") {
        skip(step.at, null, step.reason);
        continue;
      }
      const { examined, lines } = examinedAt[at]!;
      for (const line of lines) log.write(line);
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
  } catch (error) {
    // A bug here must not block start-up: report what was loaded so far.
    log.write(loaderLine.unusableRoot(skillsPath, `native scan stopped: ${error instanceof Error ? error.message : String(error)}`));
  }
  return finish();
}

import path from "node:path";
import type { LoaderEntry, LoaderReport, LoaderRoot } from "@/lib/types/skill";
import { resolveRoot, type UsableRoot } from "./allowlist-roots";
import { buildSubprocessSkill } from "./build-subprocess-skill";
import { createLoaderLog, loaderLine } from "./loader-log";
import { readManifest } from "./read-manifest";
import { listSorted, type ScanMemo } from "./scan-memo";
import type { SubprocessSkill } from "./registered-skill";
import { DEFAULT_WALK_LIMITS, walkManifests, type FoundManifest, type WalkItem, type WalkLimits } from "./walk-manifests";
import { WorkSlices } from "./work-slices";

/** Options of one subprocess loader scan. */
export interface SubprocessLoaderOptions {
  /** Timeout (seconds) of a skill whose manifest says 0 or nothing (DESIGN.md: SKILL_DEFAULT_TIMEOUT_SECONDS). */
  defaultTimeoutSeconds: number;
  /** Names already taken (e.g. by skills of another kind); a manifest claiming one is skipped as a duplicate. Not modified. */
  taken?: ReadonlySet<string>;
  /** Where each log line is echoed as it happens; default console.log. */
  log?: (line: string) => void;
  /** Bounds of each root's walk; default DEFAULT_WALK_LIMITS. */
  walkLimits?: WalkLimits;
  /**
   * Listings and examinations of earlier scans still valid (an incremental rescan: scan-memo.ts); what
   * this scan reads is kept there. Without it every folder is listed and every manifest read.
   */
  memo?: ScanMemo;
}

/** What a scan produced: the registered skills in discovery order and the report. */
export interface SubprocessLoadResult {
  skills: SubprocessSkill[];
  report: LoaderReport;
}

type Outcome =
  | { stage: "parse"; message: string; name: string | null }
  | { stage: "build"; message: string; name: string }
  | { stage: "built"; skill: SubprocessSkill; registration?: Registration };

// Parse then build one manifest. Both steps report their own failures; the catch only keeps a bug in
// them from blocking start-up.
async function examineManifest(found: FoundManifest, root: UsableRoot, defaultTimeoutSeconds: number): Promise<Outcome> {
  try {
    const read = await readManifest(found, root.real);
    if (!read.ok) return { stage: "parse", message: read.message, name: read.name };
    const built = await buildSubprocessSkill(read.manifest, read.warnings, found.path, root, defaultTimeoutSeconds, read.source);
    return built.ok ? { stage: "built", skill: built.skill } : { stage: "build", message: built.message, name: read.manifest.name };
  } catch (error) {
    return { stage: "parse", message: `unexpected error: ${error instanceof Error ? error.message : String(error)}`, name: null };
  }
}

/** What a memo keeps of one manifest: how the walk saw it and what its examination gave. */
interface RememberedManifest {
  kind: FoundManifest["kind"];
  outcome: Outcome;
}

/**
 * The built skill `memo` keeps for `found`, when the walk sees the manifest the same way as when it was
 * examined (it depends on the manifest's folder, its entry file and the file it was read from: a
 * change there voided it), or null.
 * Only built skills are kept: a failure is examined again every scan, its cause may lie anywhere (an
 * entry not created yet).
 */
function recallManifest(found: FoundManifest, memo: ScanMemo | undefined): Outcome | null {
  const remembered = memo?.recall<RememberedManifest>("subprocess", found.path);
  return remembered && remembered.kind === found.kind ? remembered.outcome : null;
}

/** examineManifest, keeping a built skill in `memo` (recallManifest). */
async function examineAndRemember(found: FoundManifest, root: UsableRoot, defaultTimeoutSeconds: number, memo: ScanMemo | undefined): Promise<Outcome> {
  const outcome = await examineManifest(found, root, defaultTimeoutSeconds);
  if (memo && outcome.stage === "built") memo.remember<RememberedManifest>("subprocess", found.path, { kind: found.kind, outcome }, [path.dirname(found.path), outcome.skill.entryPath, outcome.skill.skillSource.file]);
  return outcome;
}

/** What a registered skill adds to the report: its log lines and its entry (the same for every scan that registers it). */
interface Registration {
  lines: string[];
  entry: LoaderEntry;
}

/**
 * The registration of a built skill, made once per outcome and kept on it (an outcome the memo keeps
 * is registered with the same lines and entry objects scan after scan: an incremental rescan of
 * 10,000 skills allocates nothing for the ones it did not read again).
 */
function registrationOf(found: FoundManifest, root: UsableRoot, outcome: Extract<Outcome, { stage: "built" }>): Registration {
  if (!outcome.registration) {
    const { name, warnings } = outcome.skill;
    outcome.registration = {
      lines: [loaderLine.registered(name, found.path), ...warnings.map((warning) => loaderLine.warning(name, found.path, warning))],
      entry: { path: found.path, root: root.real, name, reason: null, warnings: [...warnings] },
    };
  }
  return outcome.registration;
}

/**
 * The subprocess skill loader (seed 000 LoadDirs, DESIGN.md "Subprocess skills"). For each root in
 * order: skip it if relative, missing or unusable; walk it in lexical order; for every `skill.json`
 * parse it (`parse` line on failure), build the skill (`build` line on failure), skip it when its name
 * is already registered or in `opts.taken` (first wins, `already registered, skipping` line), else
 * register it (`registered subprocess skill` line, then one `warning` line per manifest warning, such
 * as an unknown field). A root's manifests are all read, parsed and built (synchronous calls, yielding
 * to the event loop every SLICE_MS) before each is registered or skipped, and its lines logged, in walk
 * order, so the skills, the "first wins" choice and the log are exactly those of a one-by-one scan. Per-manifest
 * failures never stop the scan and the
 * function never throws, so start-up is never blocked. Takes the roots as configured (absolute paths)
 * and the options; returns the skills and a LoaderReport whose `count` is the number registered and
 * whose `log` holds every line in order (each was also echoed to `opts.log`).
 */
export async function loadSubprocessSkills(roots: readonly string[], opts: SubprocessLoaderOptions): Promise<SubprocessLoadResult> {
  const started = Date.now();
  const memo = opts.memo;
  const taken = [...(opts.taken ?? [])];
  const scanned: UsableRoot[] = [];
  const rootScans: RootScan[] = [];

  // Every root's walk and each manifest's outcome, in walk order: every manifest of the root is read,
  // parsed and built first (synchronous file-system calls, yielding every SLICE_MS: work-slices.ts).
  for (const given of roots) {
    const rootLines: string[] = [];
    const { usable: root, report: rootEntry } = await resolveRoot(given, scanned, { lines: rootLines, write: (line) => void rootLines.push(line) });
    if (!root) {
      rootScans.push({ rootLines, rootEntry, root: null, walked: [], outcomes: [] });
      continue;
    }
    scanned.push(root);
    const slices = new WorkSlices();
    const list = memo ? (dir: string) => memo.listing(dir) : listSorted;
    const walked = await walkManifests(root.real, opts.walkLimits ?? DEFAULT_WALK_LIMITS, slices, list, memo?.subtrees);
    const outcomes: (Outcome | null)[] = new Array(walked.length).fill(null);
    for (let index = 0; index < walked.length; index++) {
      const item = walked[index]!;
      if (!("found" in item)) continue;
      const remembered = recallManifest(item.found, memo);
      if (remembered) {
        outcomes[index] = remembered;
        continue;
      }
      outcomes[index] = await examineAndRemember(item.found, root, opts.defaultTimeoutSeconds, memo);
      await slices.check();
    }
    rootScans.push({ rootLines, rootEntry, root, walked, outcomes });
  }

  // Then each is settled (logged, registered or skipped) in that order, so the outcome and the log are
  // those of a one-by-one scan — or, when the scan before differs only in skills read again with the
  // same name and warnings (an edited manifest or script), its settlement with those skills swapped in.
  const slot = `subprocess\0${roots.join("\0")}`;
  const previous = memo?.settled.get(slot) as SubprocessSettlement | undefined;
  const patched = previous ? patchSettlement(previous, roots, taken, rootScans) : null;
  const settlement = patched ?? (await settleAll(roots, taken, rootScans, opts.log));
  if (memo) memo.settled.set(slot, settlement);
  if (patched && opts.log) for (const line of settlement.log) opts.log(line);
  return {
    skills: settlement.skills,
    report: {
      loadedAt: new Date(started).toISOString(),
      durationMs: Date.now() - started,
      roots: settlement.roots,
      registered: settlement.registered,
      skipped: settlement.skipped,
      failed: settlement.failed,
      log: settlement.log,
      count: settlement.registered.length,
    },
  };
}

/** One root of a scan before settlement: what resolving it logged and reported, and its walk with each manifest's outcome (null for a line). */
interface RootScan {
  rootLines: string[];
  rootEntry: LoaderRoot;
  root: UsableRoot | null;
  walked: WalkItem[];
  outcomes: (Outcome | null)[];
}

/** A settled scan: its inputs (to tell whether the next differs only in skills read again) and what it gave. */
interface SubprocessSettlement {
  given: readonly string[];
  taken: readonly string[];
  rootScans: RootScan[];
  /** Per root, per walk index: where that manifest's skill is in `skills`, or -1 (a line, a failure, a duplicate). */
  skillAt: Int32Array[];
  skills: SubprocessSkill[];
  roots: LoaderRoot[];
  registered: LoaderEntry[];
  skipped: LoaderEntry[];
  failed: LoaderEntry[];
  log: string[];
}

/** Settles every root's outcomes in walk order (first wins), echoing each line to `sink`. */
async function settleAll(given: readonly string[], taken: readonly string[], rootScans: RootScan[], sink: ((line: string) => void) | undefined): Promise<SubprocessSettlement> {
  const log = createLoaderLog(sink);
  // Every name taken so far: by whom (a manifest path), or null for a name `opts.taken` gave.
  const holders = new Map<string, string | null>();
  for (const name of taken) holders.set(name, null);
  const skills: SubprocessSkill[] = [];
  const registered: LoaderEntry[] = [];
  const skipped: LoaderEntry[] = [];
  const failed: LoaderEntry[] = [];
  const skillAt: Int32Array[] = [];
  const slices = new WorkSlices();

  // One manifest's outcome: logged, then failed, skipped (first wins) or registered. Returns its index in `skills`, or -1.
  function settle(found: FoundManifest, root: UsableRoot, outcome: Outcome): number {
    const at = () => ({ path: found.path, root: root.real, warnings: [] as string[] });
    if (outcome.stage === "parse") {
      log.write(loaderLine.parse(found.path, outcome.message));
      failed.push({ ...at(), name: outcome.name, reason: `parse: ${outcome.message}` });
      return -1;
    }
    if (outcome.stage === "build") {
      log.write(loaderLine.build(outcome.name, outcome.message));
      failed.push({ ...at(), name: outcome.name, reason: `build: ${outcome.message}` });
      return -1;
    }
    const { name } = outcome.skill;
    const holder = holders.get(name);
    if (holder !== undefined) {
      log.write(loaderLine.duplicate(name, found.path));
      skipped.push({ ...at(), name, reason: holder ? `name already registered from ${holder}` : "name already taken by another skill" });
      return -1;
    }
    holders.set(name, found.path);
    skills.push(outcome.skill);
    const registration = registrationOf(found, root, outcome);
    for (const line of registration.lines) log.write(line);
    registered.push(registration.entry);
    return skills.length - 1;
  }

  for (const scan of rootScans) {
    for (const line of scan.rootLines) log.write(line);
    const places = new Int32Array(scan.walked.length).fill(-1);
    skillAt.push(places);
    if (!scan.root) continue;
    for (let index = 0; index < scan.walked.length; index++) {
      const item = scan.walked[index]!;
      if (index % 256 === 255) await slices.check();
      if ("line" in item) log.write(item.line);
      else places[index] = settle(item.found, scan.root, scan.outcomes[index]!);
    }
  }
  return { given, taken, rootScans, skillAt, skills, roots: rootScans.map((scan) => scan.rootEntry), registered, skipped, failed, log: log.lines };
}

/**
 * `previous` with the skills of this scan swapped in, when nothing else can differ: the same roots,
 * resolved alike, walked to the same items, and every outcome the same object or one with the same
 * name and warnings (a built skill read again), or a failure with the same message. Then no log line,
 * entry or first-wins choice changes: only those skills' objects. Returns null when anything else
 * differs (the caller settles everything). Linear in the items, allocating only the new skills list.
 */
function patchSettlement(previous: SubprocessSettlement, given: readonly string[], taken: readonly string[], rootScans: RootScan[]): SubprocessSettlement | null {
  if (!sameStrings(previous.given, given) || !sameStrings(previous.taken, taken) || previous.rootScans.length !== rootScans.length) return null;
  const swaps: Array<{ at: number; skill: SubprocessSkill }> = [];
  for (let rootIndex = 0; rootIndex < rootScans.length; rootIndex++) {
    const before = previous.rootScans[rootIndex]!;
    const now = rootScans[rootIndex]!;
    if (!sameStrings(before.rootLines, now.rootLines) || before.root?.real !== now.root?.real || before.root?.given !== now.root?.given) return null;
    if (before.rootEntry.path !== now.rootEntry.path || before.rootEntry.status !== now.rootEntry.status || before.rootEntry.reason !== now.rootEntry.reason) return null;
    if (before.walked.length !== now.walked.length) return null;
    for (let index = 0; index < now.walked.length; index++) {
      const was = before.walked[index]!;
      const is = now.walked[index]!;
      if (was !== is) {
        if ("line" in was || "line" in is) {
          if (!("line" in was && "line" in is && was.line === is.line)) return null;
        } else if (was.found.path !== is.found.path || was.found.kind !== is.found.kind) return null;
      }
      const old = before.outcomes[index] ?? null;
      const fresh = now.outcomes[index] ?? null;
      if (old === fresh) continue;
      if (old === null || fresh === null) return null;
      if (old.stage === "built" && fresh.stage === "built") {
        if (old.skill.name !== fresh.skill.name || !sameStrings(old.skill.warnings, fresh.skill.warnings)) return null;
        const at = previous.skillAt[rootIndex]![index]!;
        if (at >= 0) swaps.push({ at, skill: fresh.skill });
      } else if (old.stage === "built" || fresh.stage === "built" || old.stage !== fresh.stage || old.message !== fresh.message || old.name !== fresh.name) return null;
    }
  }
  const skills = previous.skills.slice();
  for (const swap of swaps) skills[swap.at] = swap.skill;
  return { ...previous, rootScans, skills };
}

function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((value, index) => value === b[index]);
}

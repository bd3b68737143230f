import path from "node:path";
import type { LoaderEntry, LoaderReport, LoaderRoot } from "@/lib/types/skill";
import { resolveRoot, type UsableRoot } from "./allowlist-roots";
import { buildSubprocessSkill } from "./build-subprocess-skill";
import { createLoaderLog, loaderLine } from "./loader-log";
import { readManifest } from "./read-manifest";
import { listSorted, type ScanMemo } from "./scan-memo";
import type { SubprocessSkill } from "./registered-skill";
import { DEFAULT_WALK_LIMITS, walkManifests, type FoundManifest, type WalkLimits } from "./walk-manifests";
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
  | { stage: "built"; skill: SubprocessSkill };

// Parse then build one manifest. Both steps report their own failures; the catch only keeps a bug in
// them from blocking start-up.
async function examineManifest(found: FoundManifest, root: UsableRoot, defaultTimeoutSeconds: number): Promise<Outcome> {
  try {
    const read = await readManifest(found, root.real);
    if (!read.ok) return { stage: "parse", message: read.message, name: read.name };
    const built = await buildSubprocessSkill(read.manifest, read.warnings, found.path, root, defaultTimeoutSeconds);
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
 * examined (it depends on the manifest's folder and its entry file: a change there voided it), or null.
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
  if (memo && outcome.stage === "built") memo.remember<RememberedManifest>("subprocess", found.path, { kind: found.kind, outcome }, [path.dirname(found.path), outcome.skill.entryPath]);
  return outcome;
}

/** What a registered skill adds to the report: its log lines and its entry (the same for every scan that registers it). */
interface Registration {
  lines: string[];
  entry: LoaderEntry;
}

/**
 * The registration of a built skill, made once per outcome (an outcome the memo keeps is registered
 * with the same lines and entry objects scan after scan: an incremental rescan of 10,000 skills
 * allocates nothing for the ones it did not read again).
 */
const registrations = new WeakMap<Outcome, Registration>();

function registrationOf(found: FoundManifest, root: UsableRoot, outcome: Extract<Outcome, { stage: "built" }>): Registration {
  let registration = registrations.get(outcome);
  if (!registration) {
    const { name, warnings } = outcome.skill;
    registration = {
      lines: [loaderLine.registered(name, found.path), ...warnings.map((warning) => loaderLine.warning(name, found.path, warning))],
      entry: { path: found.path, root: root.real, name, reason: null, warnings: [...warnings] },
    };
    registrations.set(outcome, registration);
  }
  return registration;
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
  const log = createLoaderLog(opts.log);
  const taken = new Set(opts.taken ?? []);
  const firstSeen = new Map<string, string>();
  const skills: SubprocessSkill[] = [];
  const registered: LoaderEntry[] = [];
  const skipped: LoaderEntry[] = [];
  const failed: LoaderEntry[] = [];
  const scanned: UsableRoot[] = [];
  const rootReport: LoaderRoot[] = [];

  // One manifest's outcome, taken in walk order: logged, then failed, skipped (first wins) or registered.
  function settle(found: FoundManifest, root: UsableRoot, outcome: Outcome): void {
    const at = () => ({ path: found.path, root: root.real, warnings: [] as string[] });
    if (outcome.stage === "parse") {
      log.write(loaderLine.parse(found.path, outcome.message));
      failed.push({ ...at(), name: outcome.name, reason: `parse: ${outcome.message}` });
      return;
    }
    if (outcome.stage === "build") {
      log.write(loaderLine.build(outcome.name, outcome.message));
      failed.push({ ...at(), name: outcome.name, reason: `build: ${outcome.message}` });
      return;
    }
    const { name } = outcome.skill;
    if (taken.has(name)) {
      const holder = firstSeen.get(name);
      log.write(loaderLine.duplicate(name, found.path));
      skipped.push({ ...at(), name, reason: holder ? `name already registered from ${holder}` : "name already taken by another skill" });
      return;
    }
    taken.add(name);
    firstSeen.set(name, found.path);
    skills.push(outcome.skill);
    const registration = registrationOf(found, root, outcome);
    for (const line of registration.lines) log.write(line);
    registered.push(registration.entry);
  }

  for (const given of roots) {
    const { usable: root, report: rootEntry } = await resolveRoot(given, scanned, log);
    rootReport.push(rootEntry);
    if (!root) continue;
    scanned.push(root);
    // The walk's lines and each manifest's outcome, in walk order: every manifest of the root is read,
    // parsed and built first (synchronous file-system calls, yielding every SLICE_MS: work-slices.ts),
    // then each is settled (logged, registered or skipped) in that order, so the outcome and the log
    // are those of a one-by-one scan.
    const slices = new WorkSlices();
    const memo = opts.memo;
    const list = memo ? (dir: string) => memo.listing(dir, listSorted) : listSorted;
    const walked = await walkManifests(root.real, opts.walkLimits ?? DEFAULT_WALK_LIMITS, slices, list, memo?.subtrees);
    const outcomes: (Outcome | null)[] = new Array(walked.length);
    for (const [index, item] of walked.entries()) {
      if (!("found" in item)) continue;
      const remembered = recallManifest(item.found, memo);
      if (remembered) {
        outcomes[index] = remembered;
        continue;
      }
      outcomes[index] = await examineAndRemember(item.found, root, opts.defaultTimeoutSeconds, memo);
      await slices.check();
    }
    for (const [index, item] of walked.entries()) {
      if (index % 256 === 255) await slices.check();
      if ("line" in item) log.write(item.line);
      else settle(item.found, root, outcomes[index]!);
    }
  }

  return {
    skills,
    report: {
      loadedAt: new Date(started).toISOString(),
      durationMs: Date.now() - started,
      roots: rootReport,
      registered,
      skipped,
      failed,
      log: log.lines,
      count: registered.length,
    },
  };
}

import { config } from "@/lib/server/env";
import { LOADER_SCAN_NAMES, scanChanges, type LoaderReport, type LoaderScan, type LoaderScanTrigger } from "@/lib/types/skill";
import { onReplicaCatchUp, onReplicaMessage } from "../replica-bus";
import { loadSecretGrants, type SecretGrants } from "../secrets/secret-store";
import { LOG_PREFIX } from "./loader-log";
import type { RegisteredSkill } from "./registered-skill";
import { ScanMemo, type DiskChange } from "./scan-memo";
import { withPackState } from "../packs/pack-skill-state";
import { scanSkills } from "./scan-skills";
import { withSecretGrants } from "./secret-grants";
import { createSkillRegistry, type SkillRegistry } from "./skill-registry";

export type { SkillFilter, SkillRegistry } from "./skill-registry";

// Kept on globalThis so every Next.js route bundle (each its own module instance) shares one registry.
const REGISTRY_KEY = Symbol.for("skill-console.registry");

interface RegistryState {
  current: SkillRegistry | null;
  /** What the last scan found, before the secrets are applied (withSecretGrants). */
  scanned: { skills: readonly RegisteredSkill[]; report: LoaderReport } | null;
  /** Which secrets each skill is given, as last read. */
  grants: SecretGrants;
  /** Tickets of the reads of `grants`: a read applies only when no later-started read applied first. */
  grantsTicket: { issued: number; applied: number };
  /** The scan running now, if any (one at a time). */
  running: PendingScan | null;
  /** The scan that runs when the running one ends, shared by every request made meanwhile. */
  pending: PendingScan | null;
  /** What the scans read, for the next targeted one (scan-memo.ts). */
  memo: ScanMemo;
  /** The last LOADER_HISTORY scans, newest first. */
  history: LoaderScan[];
}

/** A scan asked for and not started yet: full, or targeted at the changes reported so far. */
interface PendingScan {
  full: boolean;
  trigger: LoaderScanTrigger;
  changes: DiskChange[];
  done: Promise<LoaderScanResult>;
  /** `done`'s report, made once so that every caller of reloadRegistry meanwhile gets the same promise. */
  report?: Promise<LoaderReport>;
  resolve: (result: LoaderScanResult) => void;
  reject: (error: unknown) => void;
}

/** What one scan gave: its report and its history entry. */
export interface LoaderScanResult {
  report: LoaderReport;
  scan: LoaderScan;
}

/** How many scans the loader's history keeps. */
export const LOADER_HISTORY = 20;

function state(): RegistryState {
  const holder = globalThis as Record<symbol, RegistryState | undefined>;
  return (holder[REGISTRY_KEY] ??= { current: null, scanned: null, grants: new Map(), grantsTicket: { issued: 0, applied: 0 }, running: null, pending: null, memo: new ScanMemo(), history: [] });
}

/** Makes the snapshot the registry serves: the scanned skills with the secrets they are given applied. */
function publish(registry: RegistryState): void {
  if (!registry.scanned) return;
  const { skills, report } = registry.scanned;
  registry.current = createSkillRegistry(
    skills.map((skill) => withSecretGrants(skill, registry.grants)),
    report,
  );
}

/**
 * Reads the grants and keeps them unless a read started later was applied first (reads may finish out of
 * order). A failed read (the database unreachable, or not migrated yet) keeps the grants it had — none
 * at first, so a skill that needs a secret stays unavailable: it is logged, never thrown, and the next
 * change or scan reads them again.
 */
async function readGrants(registry: RegistryState): Promise<void> {
  const ticket = ++registry.grantsTicket.issued;
  let grants: SecretGrants;
  try {
    grants = await loadSecretGrants();
  } catch (error) {
    console.error(`loader: could not read which skills are given which secrets (${(error as Error).message.split("\n").filter(Boolean).at(-1) ?? "unknown error"}); skills that need a secret stay unavailable until they are read`);
    return;
  }
  if (ticket < registry.grantsTicket.applied) return;
  registry.grantsTicket.applied = ticket;
  registry.grants = grants;
}

/**
 * Runs one scan: a full one (everything read again: the memo forgotten first) for the first scan, a
 * Rescan or another replica's reload; a targeted one for the watcher's changes (the memo voids what
 * they touch, and the rest is served from it). A full scan echoes every loader line; a targeted one
 * echoes one summary line instead (its report still holds every line, as a full scan's would).
 */
async function scanInto(registry: RegistryState, pending: PendingScan): Promise<LoaderScanResult> {
  const full = pending.full || registry.scanned === null;
  if (full) registry.memo.forget();
  else registry.memo.invalidate(pending.changes);
  const trigger: LoaderScanTrigger = registry.scanned === null ? "start" : pending.trigger;
  const [{ skills: scanned, report }] = await Promise.all([scanSkills(config(), full ? undefined : () => undefined, registry.memo), readGrants(registry)]);
  // A pack's skill whose files are not the enabled version's is listed unavailable (withPackState).
  const skills = await withPackState(scanned);
  const scan = describeScan(trigger, registry.scanned?.skills ?? null, skills, report, full ? [] : pending.changes);
  registry.scanned = { skills, report };
  publish(registry);
  registry.history = [scan, ...registry.history].slice(0, LOADER_HISTORY);
  if (!full) console.log(`${LOG_PREFIX}${summaryOf(scan)}`);
  return { report, scan };
}

/** The history entry of a scan: `before` (null for the first) against `after`, the changes that caused it. Pure. */
function describeScan(trigger: LoaderScanTrigger, before: readonly RegisteredSkill[] | null, after: readonly RegisteredSkill[], report: LoaderReport, changes: readonly DiskChange[]): LoaderScan {
  const { added, removed, changed } = before === null ? { added: [], removed: [], changed: [] } : skillChanges(before, after);
  const paths = [...new Set(changes.map((change) => change.path))];
  return {
    at: report.loadedAt,
    trigger,
    durationMs: report.durationMs,
    count: report.count,
    failed: report.failed.length,
    skipped: report.skipped.length,
    added: added.slice(0, LOADER_SCAN_NAMES),
    addedCount: before === null ? report.count : added.length,
    removed: removed.slice(0, LOADER_SCAN_NAMES),
    removedCount: removed.length,
    changed: changed.slice(0, LOADER_SCAN_NAMES),
    changedCount: changed.length,
    paths: paths.slice(0, LOADER_SCAN_NAMES),
    pathCount: paths.length,
  };
}

/**
 * Names of the skills added, removed and changed between two scans, each sorted. A skill is unchanged
 * when it is the same object (a targeted scan reuses what it did not read again) or serialises the
 * same. Pure.
 */
export function skillChanges(before: readonly RegisteredSkill[], after: readonly RegisteredSkill[]): { added: string[]; removed: string[]; changed: string[] } {
  const old = new Map(before.map((skill) => [skill.name, skill]));
  const added: string[] = [];
  const changed: string[] = [];
  for (const skill of after) {
    const previous = old.get(skill.name);
    old.delete(skill.name);
    if (previous === undefined) added.push(skill.name);
    else if (previous !== skill && JSON.stringify(previous) !== JSON.stringify(skill)) changed.push(skill.name);
  }
  return { added: added.sort(), removed: [...old.keys()].sort(), changed: changed.sort() };
}

/** One line saying what a targeted scan found, for the console's log. */
function summaryOf(scan: LoaderScan): string {
  return `rescanned ${scan.pathCount} changed path${scan.pathCount === 1 ? "" : "s"} on disk in ${scan.durationMs} ms: ${scanChanges(scan)} (${scan.count} skills)`;
}

/**
 * Asks for a scan: full (`changes` null) or targeted at `changes`. While one runs, requests join the
 * one pending after it (a full request makes it full); it starts when the running one ends, so each
 * caller's result reflects the disk as it was at or after its request. Returns that scan's promise.
 */
function requestScan(registry: RegistryState, trigger: LoaderScanTrigger, changes: readonly DiskChange[] | null): PendingScan {
  let pending = registry.pending;
  if (!pending) {
    let resolve!: (result: LoaderScanResult) => void;
    let reject!: (error: unknown) => void;
    const done = new Promise<LoaderScanResult>((ok, fail) => {
      resolve = ok;
      reject = fail;
    });
    pending = registry.pending = { full: false, trigger, changes: [], done, resolve, reject };
  }
  if (changes === null) {
    pending.full = true;
    pending.trigger = trigger;
    pending.changes = [];
  } else if (!pending.full) pending.changes.push(...changes);
  startNext(registry);
  return pending;
}

function startNext(registry: RegistryState): void {
  if (registry.running || !registry.pending) return;
  const pending = registry.pending;
  registry.pending = null;
  registry.running = pending;
  void scanInto(registry, pending)
    .then(pending.resolve, pending.reject)
    .finally(() => {
      registry.running = null;
      startNext(registry);
    });
}

/**
 * The process-wide skill registry. The first call starts the first scan of `config().skillRoots`, and
 * every caller waits for that scan to finish (DESIGN.md: requests are served only after the first
 * loader scan has finished); later calls return the current snapshot at once, even while a reload
 * runs. Throws only what config() throws (ConfigError), and a later call then tries again.
 */
export async function getRegistry(): Promise<SkillRegistry> {
  const registry = state();
  while (!registry.current) await (registry.running ?? registry.pending ?? requestScan(registry, "start", null)).done;
  return registry.current;
}

/**
 * Rescans every root, reading everything again, and swaps the new snapshot in atomically
 * (`POST /api/v1/loader/reload`, or `replica` when another replica reloaded); callers holding the old
 * snapshot keep a consistent view. Concurrent requests coalesce: while a scan runs, all new requests
 * share one follow-up scan that starts when it ends, so each caller's report reflects the disk as it
 * was at or after its request. Returns that scan's LoaderReport; throws like getRegistry.
 */
export function reloadRegistry(trigger: "rescan" | "replica" = "rescan"): Promise<LoaderReport> {
  const pending = requestScan(state(), trigger, null);
  return (pending.report ??= pending.done.then((result) => result.report));
}

/**
 * Rescans what `changes` touched (the root watcher's report: DESIGN.md "Skill packs", issue 13 point 4),
 * reading only that again (scan-memo.ts), and swaps the new snapshot in as reloadRegistry does; joins a
 * scan already pending. Resolves with the scan's report and history entry (what it added, removed,
 * changed); throws like getRegistry.
 */
export function updateRegistry(changes: readonly DiskChange[]): Promise<LoaderScanResult> {
  return requestScan(state(), "watch", changes).done;
}

/** The loader's last LOADER_HISTORY scans, newest first (`GET /api/v1/loader` `history`). */
export function loaderHistory(): readonly LoaderScan[] {
  return state().history;
}

/**
 * Reads which skills are given which secrets again and swaps in a snapshot with them applied, without
 * scanning the roots (DESIGN.md "Skill secrets": a skill that needs a secret is available once it is
 * given it). Called after a secret changed here, and when another replica says one did (`secrets`).
 * Never throws: a failed read is logged and the snapshot keeps the secrets it had (readGrants).
 */
export async function refreshSecretGrants(): Promise<void> {
  const registry = state();
  await readGrants(registry);
  publish(registry);
}

onReplicaMessage("secrets", () => refreshSecretGrants());
// A change announced while this replica's LISTEN session was down was not heard.
onReplicaCatchUp("secrets", () => refreshSecretGrants());

/** Forgets the registry so the next getRegistry() scans again with the current settings (tests only). */
export function resetRegistryForTests(): void {
  (globalThis as Record<symbol, RegistryState | undefined>)[REGISTRY_KEY] = undefined;
}

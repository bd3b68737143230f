import { config } from "@/lib/server/env";
import type { LoaderWatch } from "@/lib/types/skill";
import { failStaleQueuedCalls } from "../requests/fail-stale-queued-calls";
import { requestWorkerRescans } from "../workers/claim-calls";
import { updateRegistry } from "./registry";
import { watchRoots, type RootWatcher } from "./root-watcher";
import { scannedRoots } from "./scan-skills";
import type { DiskChange } from "./scan-memo";

const WATCH_KEY = Symbol.for("skill-console.skill-watch");

interface WatchState {
  watcher: RootWatcher | null;
  status: LoaderWatch;
}

function state(): WatchState {
  const holder = globalThis as Record<symbol, WatchState | undefined>;
  return (holder[WATCH_KEY] ??= { watcher: null, status: { status: "off", paths: [], reason: null } });
}

/**
 * What the registry does with changes the watcher saw (or a pack's install reports): a targeted rescan (updateRegistry), then, as
 * after a Rescan, queued calls whose skill changed or went end `failed` and the workers are asked to
 * rescan what changed (a changed script changes the skill's digest even when its record stays the
 * same; a worker watching the same disk reads only what changed, one that does not reads everything).
 */
export async function followChanges(changes: readonly DiskChange[]): Promise<void> {
  await updateRegistry(changes);
  await failStaleQueuedCalls();
  await requestWorkerRescans(false);
}

/**
 * Starts watching the allow-list roots and the skills path (DESIGN.md "Skill packs": a skill folder
 * changed on disk is rescanned on its own within 2 s, reading only what changed), unless SKILLS_WATCH
 * is false. Called once at start-up, after the first scan; a second call does nothing. Resolves once
 * every folder is watched. Never throws: a watch that cannot start or stops is reported in
 * watchStatus() and logged, and changes then wait for Rescan.
 */
export async function startWatchingSkills(): Promise<void> {
  const watch = state();
  if (watch.watcher) return;
  const settings = config();
  if (!settings.watchSkills) {
    watch.status = { status: "off", paths: [], reason: "SKILLS_WATCH is false: changes on disk wait for Rescan" };
    return;
  }
  try {
    const watcher = watchRoots(scannedRoots(settings).all, followChanges, (reason) => {
      console.error(`skill loader: ${reason}`);
      watch.status = { ...watch.status, status: "failed", reason };
    });
    watch.watcher = watcher;
    watch.status = { status: "watching", paths: [], reason: null };
    await watcher.ready;
  } catch (error) {
    const reason = `watching could not start: ${(error as Error).message}; changes on disk wait for Rescan`;
    console.error(`skill loader: ${reason}`);
    watch.status = { status: "failed", paths: [], reason };
  }
}

/** Whether the console watches its roots, and which folders now (`GET /api/v1/loader` `watch`). */
export function watchStatus(): LoaderWatch {
  const { status, watcher } = state();
  return status.status === "watching" && watcher ? { ...status, paths: watcher.paths() } : status;
}

/** Stops watching (tests; the process's end stops it otherwise). */
export async function stopWatchingSkills(): Promise<void> {
  const watch = state();
  const watcher = watch.watcher;
  watch.watcher = null;
  watch.status = { status: "off", paths: [], reason: null };
  await watcher?.close();
}

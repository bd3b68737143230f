import type { LoaderReport } from "@/lib/types/skill";
import { announce, onReplicaCatchUp, onReplicaMessage } from "../replica-bus";
import { failStaleQueuedCalls } from "../requests/fail-stale-queued-calls";
import { requestWorkerRescans } from "../workers/claim-calls";
import { reloadRegistry } from "./registry";

/**
 * Reloads the skills everywhere (`POST /api/v1/loader/reload`): a fresh scan of every allow-list root
 * here, then queued calls whose skill changed or vanished end `failed` (failStaleQueuedCalls), every
 * live worker is asked to rescan its own roots and report its digests again, and the other replicas
 * hear `reload` and scan their roots too (DESIGN.md "Several replicas": a reload on A is seen by B).
 * Returns this replica's LoaderReport; throws like reloadRegistry.
 */
export async function reloadSkills(): Promise<LoaderReport> {
  const report = await reloadRegistry();
  announce({ kind: "reload" });
  await failStaleQueuedCalls();
  await requestWorkerRescans();
  return report;
}

/**
 * Makes this replica follow the others' reloads (called once at start-up): on `reload` it scans its
 * own roots (the replica that reloaded already failed the stale queued calls and asked for rescans).
 * After its LISTEN session was down (a PostgreSQL restart, a dropped connection) it scans them once
 * too: a reload announced meanwhile was not heard, and nothing else would bring it.
 */
export function followReplicaReloads(): void {
  onReplicaMessage("reload", async () => {
    const report = await reloadRegistry("replica");
    console.log(`loader: reloaded after another replica did (${report.count} skills)`);
  });
  onReplicaCatchUp("reload", async () => {
    const report = await reloadRegistry("replica");
    console.log(`loader: reloaded after the replica bus was down, for a reload it may have missed (${report.count} skills)`);
  });
}

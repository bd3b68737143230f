import { agreedNow } from "../database-clock";
import { statements } from "../db-statements";
import { config } from "../env";
import { parseLabels } from "./worker-tokens";

/** Whether a worker (its name and its stored JSON labels) answers to a call's `target`: its name or one of its labels (DESIGN.md "Workers"). Pure. */
export function answersToTarget(worker: { name: string; labels: string }, target: string): boolean {
  return worker.name === target || parseLabels(worker.labels).includes(target);
}

/**
 * Whether a live worker (heard from within CALL_LEASE_MS, not stopped) has `target` as its name or one
 * of its labels (DESIGN.md "Workers": a call's `target`): a synchronous caller that names a worker
 * none serves would otherwise wait for one that may never come (the ongrid drop-in's `edge_id`).
 */
export async function liveWorkerServes(target: string): Promise<boolean> {
  const since = new Date((await agreedNow()).getTime() - config().leaseMs);
  const live = await statements().$queryRaw<Array<{ name: string; labels: string }>>`SELECT "name", "labels" FROM "Worker" WHERE "stoppedAt" IS NULL AND "lastSeenAt" > ${since}`;
  return live.some((worker) => answersToTarget(worker, target));
}

import { db } from "../db";
import { config } from "../env";

/** The lease end of a claimed call: now + CALL_LEASE_MS. */
export function nextLeaseUntil(now = Date.now()): Date {
  return new Date(now + config().leaseMs);
}

/**
 * Renews the leases of the calls a worker session says it runs (DESIGN.md: workers renew a lease per
 * call; `POST /api/v1/workers/{id}/lease`). Only calls still `running` and owned by that session are
 * renewed. Returns the ids among `running` to cancel (someone asked) and those the worker no longer
 * owns (ended meanwhile: interrupted after a lapsed lease, or never its own) — it must stop those.
 */
export async function renewWorkerLeases(workerId: string, running: readonly string[]): Promise<{ cancel: string[]; lost: string[] }> {
  const now = new Date();
  await db().worker.update({ where: { id: workerId }, data: { lastSeenAt: now } });
  if (running.length === 0) return { cancel: [], lost: [] };
  await db().call.updateMany({ where: { id: { in: [...running] }, workerId, status: "running" }, data: { leaseUntil: nextLeaseUntil(now.getTime()) } });
  const owned = await db().call.findMany({ where: { id: { in: [...running] }, workerId, status: "running" }, select: { id: true, cancelRequestedAt: true } });
  const ownedIds = new Set(owned.map((row) => row.id));
  return {
    cancel: owned.filter((row) => row.cancelRequestedAt !== null).map((row) => row.id),
    lost: running.filter((id) => !ownedIds.has(id)),
  };
}

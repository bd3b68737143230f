import { Prisma } from "@prisma/client";
import { agreedNow } from "../database-clock";
import { statements } from "../db-statements";
import { config } from "../env";

/** The lease end of a claimed call: `now` (ms, agreedNow: the replicas' shared clock) + CALL_LEASE_MS. */
export function nextLeaseUntil(now: number): Date {
  return new Date(now + config().leaseMs);
}

/**
 * Renews the leases of the calls a worker session says it runs (DESIGN.md: workers renew a lease per
 * call; `POST /api/v1/workers/{id}/lease`). Only calls still `running` and owned by that session are
 * renewed. Returns the ids among `running` to cancel (someone asked) and those the worker no longer
 * owns (ended meanwhile: interrupted after a lapsed lease, or never its own) — it must stop those.
 */
export async function renewWorkerLeases(workerId: string, running: readonly string[]): Promise<{ cancel: string[]; lost: string[] }> {
  // Liveness and the lease on the replicas' agreed clock (database-clock.ts), like every judge of them.
  await statements().$executeRaw`UPDATE "Worker" SET "lastSeenAt" = ${await agreedNow()} WHERE "id" = ${workerId}`;
  if (running.length === 0) return { cancel: [], lost: [] };
  const owned = await statements().$queryRaw<Array<{ id: string; cancelRequestedAt: Date | null }>>`
    UPDATE "Call" SET "leaseUntil" = ${nextLeaseUntil((await agreedNow()).getTime())}
    WHERE "id" IN (${Prisma.join([...running])}) AND "workerId" = ${workerId} AND "status" = 'running'
    RETURNING "id", "cancelRequestedAt"`;
  const ownedIds = new Set(owned.map((row) => row.id));
  return {
    cancel: owned.filter((row) => row.cancelRequestedAt !== null).map((row) => row.id),
    lost: running.filter((id) => !ownedIds.has(id)),
  };
}

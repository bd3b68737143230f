import { recordAudit } from "../audit/audit-trail";
import { db } from "../db";
import { config } from "../env";
import { killOrphanGroup } from "../executor";
import { cancelLocalCall, localCallIds } from "./call-runner";
import { consoleInstanceId } from "./console-instance";

const LIVE_STATUSES = ["queued", "running"];

/** The lease end a console writes for its live calls: now + CALL_LEASE_MS. */
export function nextLeaseUntil(now = Date.now()): Date {
  return new Date(now + config().leaseMs);
}

/**
 * Renews this console's lease on the calls it runs (DESIGN.md owner-and-lease rule) and applies cancel
 * requests that other consoles stored for them. Returns how many leases were renewed.
 */
export async function renewLeases(): Promise<number> {
  const ids = localCallIds();
  if (ids.length === 0) return 0;
  const owner = consoleInstanceId();
  const renewed = await db().call.updateMany({
    where: { id: { in: ids }, ownerId: owner, status: { in: LIVE_STATUSES } },
    data: { leaseUntil: nextLeaseUntil() },
  });
  const cancelled = await db().call.findMany({
    where: { id: { in: ids }, ownerId: owner, cancelRequestedAt: { not: null } },
    select: { id: true },
  });
  for (const { id } of cancelled) cancelLocalCall(id);
  return renewed.count;
}

/** What recovery did with one call whose owner's lease had lapsed. */
export interface RecoveredCall {
  id: string;
  group: "killed" | "gone" | "not_ours" | "none";
}

/**
 * Marks `interrupted` every `queued` or `running` call whose owner's lease has lapsed, keeping the
 * timeline it had and appending a system line, then kills its surviving process group when it is safely
 * the same one (same host, same boot, same process start). Each call is claimed with a compare-and-set on
 * its status and lease, so of several consoles sharing the database exactly one recovers it, and a call
 * whose owner is alive (lease still valid) is never touched; each recovery gets a `call.interrupted`
 * audit entry, and nothing ever starts the call again. Returns the calls recovered here.
 */
export async function recoverInterruptedCalls(now = new Date()): Promise<RecoveredCall[]> {
  const stale = await db().call.findMany({
    where: {
      status: { in: LIVE_STATUSES },
      NOT: { ownerId: consoleInstanceId() },
      OR: [{ leaseUntil: null }, { leaseUntil: { lt: now } }],
    },
  });
  const recovered: RecoveredCall[] = [];
  for (const row of stale) {
    const lastSeen = await lastSignOfLife(row.id, row.leaseUntil, now);
    const claimed = await db().call.updateMany({
      where: { id: row.id, status: row.status, leaseUntil: row.leaseUntil },
      data: {
        status: "interrupted",
        endedAt: lastSeen,
        durationMs: row.startedAt ? Math.max(0, lastSeen.getTime() - row.startedAt.getTime()) : null,
        error: "the console running this call stopped before it ended",
        leaseUntil: null,
      },
    });
    if (claimed.count !== 1) continue;
    let group: RecoveredCall["group"] = "none";
    if (row.pgid !== null && row.host !== null) {
      group = await killOrphanGroup(row.pgid, { host: row.host, bootId: row.bootId, procStart: row.procStart }, config().killGraceMs);
    }
    const last = await db().callEvent.aggregate({ where: { callId: row.id }, _max: { seq: true } });
    const seq = (last._max.seq ?? 0) + 1;
    const line =
      group === "killed"
        ? `interrupted: the owning console stopped; its surviving process group ${row.pgid} was killed`
        : "interrupted: the owning console stopped before the call ended";
    await db().callEvent.create({ data: { callId: row.id, seq, at: now, stream: "system", line } });
    await db().call.update({ where: { id: row.id }, data: { eventCount: seq } });
    // Issue 4: executions and their ends are audited; an interrupted call is never re-run.
    await recordAudit({ action: "call.interrupted", actor: "system", callId: row.id, skill: row.skill, digest: row.digest, details: { group, previousStatus: row.status } });
    recovered.push({ id: row.id, group });
  }
  return recovered;
}

/**
 * When a dead console's call was last known alive: the later of its last timeline event and its last
 * lease renewal (the lease end minus CALL_LEASE_MS), never after `now`. The call's duration ends there,
 * not at the moment another console noticed the lease had lapsed.
 */
async function lastSignOfLife(callId: string, leaseUntil: Date | null, now: Date): Promise<Date> {
  const last = await db().callEvent.findFirst({ where: { callId }, orderBy: { seq: "desc" }, select: { at: true } });
  const renewedAt = leaseUntil ? leaseUntil.getTime() - config().leaseMs : 0;
  const seen = Math.max(last?.at.getTime() ?? 0, renewedAt);
  return new Date(seen > 0 ? Math.min(seen, now.getTime()) : now.getTime());
}

import type { Call as CallRow } from "@prisma/client";
import { agreedNow } from "../database-clock";
import { db } from "../db";
import { statementTransaction } from "../db-statements";
import { publishEnd, publishEvents } from "./call-bus";
import { appendSystemLine } from "./call-events";
import { toCall } from "./call-record";
import { transitionCall } from "./call-transitions";
import { workerInContact } from "../workers/worker-contact";

/**
 * Ends one `running` call `interrupted` (DESIGN.md: a worker that loses its lease loses the call, which
 * ends `interrupted`, never re-run): compare-and-set from `running` (and, when given, still owned by
 * `workerId` with the lease seen, so a renewal that won the race keeps the call), a system line with
 * the reason appended to its timeline, the `call.interrupted` audit entry, in one transaction; then
 * tells the call's subscribers. Returns the call's row as ended, or null when it had already moved on.
 */
export async function interruptCall(row: Pick<CallRow, "id" | "skill" | "digest" | "startedAt" | "workerId" | "leaseUntil">, reason: string, options: { lapsed?: boolean } = {}): Promise<CallRow | null> {
  const now = new Date();
  const result = await statementTransaction(async (tx) => {
    const ended = await transitionCall(
      {
        callId: row.id,
        from: "running",
        to: "interrupted",
        where: options.lapsed ? { leaseUntil: row.leaseUntil, workerId: row.workerId } : { workerId: row.workerId },
        changes: { error: reason, endedAt: now, leaseUntil: null, durationMs: row.startedAt ? Math.max(0, now.getTime() - row.startedAt.getTime()) : null },
        audit: { action: "call.interrupted", actor: "system", callId: row.id, skill: row.skill, digest: row.digest, details: { reason, worker: row.workerId } },
      },
      tx,
    );
    if (!ended) return null;
    const event = await appendSystemLine(tx, row.id, `interrupted: ${reason}`, now);
    const [counted] = await tx.$queryRaw<CallRow[]>`UPDATE "Call" SET "eventCount" = ${event.seq} WHERE "id" = ${row.id} RETURNING *`;
    return { row: counted!, event };
  });
  if (!result) return null;
  publishEvents(row.id, [result.event]);
  publishEnd(row.id, toCall(result.row));
  return result.row;
}

/**
 * Ends `interrupted` every running call whose worker's lease has lapsed (the worker died, was killed,
 * or lost the console for longer than CALL_LEASE_MS). Each is a compare-and-set on its status and the
 * lease seen, so of several consoles sharing the database exactly one ends it, and a call whose worker
 * renewed meanwhile is never touched; nor is one whose worker reached this console within the lease
 * (workerInContact: its renewals were refused by a busy database, and its finish is still coming).
 * A lease has lapsed by the replicas' shared clock (agreedNow), not this process's own, unless the
 * caller passes `now`. Returns the calls ended here.
 */
export async function interruptLapsedCalls(now?: Date): Promise<CallRow[]> {
  const cutoff = now ?? (await agreedNow());
  const lapsed = await db().call.findMany({ where: { status: "running", leaseUntil: { lt: cutoff } }, take: 500 });
  const ended: CallRow[] = [];
  for (const row of lapsed) {
    // Its worker kept calling (the busy database refused its renewals): its finish is on the way.
    // Contact times are this process's own, so they are compared with its own clock.
    if (workerInContact(row.workerId, now ? now.getTime() : Date.now())) continue;
    const done = await interruptCall(row, `the worker ${row.workerName ?? "running it"} stopped renewing its lease (it stopped, was killed or lost the console)`, { lapsed: true });
    if (done) ended.push(done);
  }
  return ended;
}

/** Ends `interrupted` every running call of one worker session (its token was revoked). Returns how many. */
export async function interruptWorkerCalls(workerId: string, reason: string): Promise<number> {
  const running = await db().call.findMany({ where: { status: "running", workerId } });
  let count = 0;
  for (const row of running) if (await interruptCall(row, reason)) count++;
  return count;
}

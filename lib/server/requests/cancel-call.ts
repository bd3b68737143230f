import type { Call } from "@/lib/types/call";
import { roleAtLeast, type Identity } from "@/lib/types/identity";
import { auditActor } from "../approvals/audit-actor";
import { cancelWaitingCall } from "../approvals/cancel-waiting-call";
import { announceToWorker, releaseQueueRoom } from "../calls/call-queue";
import { publishEnd } from "../calls/call-bus";
import { toCall } from "../calls/call-record";
import { transitionCall } from "../calls/call-transitions";
import { waitForCallEnd } from "../calls/wait-for-call";
import { getCall } from "../calls/read-calls";
import { recordAudit } from "../audit/audit-trail";
import { db } from "../db";
import { statementTransaction } from "../db-statements";
import { AppError } from "../errors";
import { markAboutExisting } from "../audit/refused-attempts";

/** How long a cancel waits for the worker to stop a running call and report it, in ms. */
const RUNNING_CANCEL_WAIT_MS = 30_000;

/**
 * Cancels a call (`POST /api/v1/calls/{id}/cancel`; DESIGN.md: the requester, or an operator and above)
 * and returns it as it is afterwards. A call awaiting a confirmation or signatures ends `cancelled` at
 * once (its approval `denied`); a queued one too (no worker has it: DESIGN.md, queued calls stay
 * visible and cancellable); a running one gets a cancel request its worker receives on its claim poll
 * (or next lease renewal) and applies by terminating the call's whole process tree, and this waits
 * (up to 30 s) for the worker's report; the request is a `call.cancel_requested` audit entry naming who
 * asked, and the call's error names them once it has ended. Throws `not_found`, `forbidden` (neither the requester nor an
 * operator), or `not_running` (409) when it already ended.
 */
export async function cancelCall(id: string, identity: Identity, signal?: AbortSignal): Promise<Call> {
  const row = await db().call.findUnique({ where: { id }, select: { requesterId: true } });
  if (!row) throw new AppError("not_found", `no call with id ${JSON.stringify(id)}`);
  if (row.requesterId !== identity.userId && !roleAtLeast(identity.role, "operator")) {
    throw markAboutExisting(new AppError("forbidden", "only the requester or an operator may cancel this call"));
  }
  let call = await getCall(id);
  if (call.status === "awaiting_confirmation" || call.status === "awaiting_approval") {
    if (await cancelWaitingCall(id, identity)) return getCall(id);
    // A confirmation or the last signature won the race: cancel the run it queued.
    call = await getCall(id);
  }
  if (call.status === "queued") {
    const who = auditActor(identity);
    const cancelled = await transitionCall({
      callId: id,
      from: "queued",
      to: "cancelled",
      changes: { error: `cancelled before it started, by ${who}`, endedAt: new Date() },
      audit: { action: "call.cancelled", actor: who, actorId: identity.userId, details: { waited: "worker" } },
    });
    if (cancelled) {
      releaseQueueRoom(id);
      const ended = toCall(cancelled);
      publishEnd(id, ended);
      return ended;
    }
    call = await getCall(id);
  }
  if (call.status !== "running") throw new AppError("not_running", `call ${id} is ${call.status}, not queued or running`);
  // Who asked is an audit entry with the request (the worker's report that ends the call is the system's).
  const who = auditActor(identity);
  const marked = await statementTransaction(async (tx) => {
    const count = await tx.$executeRaw`UPDATE "Call" SET "cancelRequestedAt" = COALESCE("cancelRequestedAt", ${new Date()}) WHERE "id" = ${id} AND "status" = 'running'`;
    if (count === 1) await recordAudit({ action: "call.cancel_requested", actor: who, actorId: identity.userId, callId: id, skill: call.skill, details: { worker: call.worker } }, tx);
    return count;
  });
  const current = await db().call.findUnique({ where: { id }, select: { workerId: true } });
  if (marked === 1 && current?.workerId) announceToWorker(current.workerId);
  const timeout = AbortSignal.timeout(RUNNING_CANCEL_WAIT_MS);
  const ended = await waitForCallEnd(id, signal ? AbortSignal.any([signal, timeout]) : timeout);
  return ended ?? getCall(id);
}

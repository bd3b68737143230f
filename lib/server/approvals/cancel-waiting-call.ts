import type { Identity } from "@/lib/types/identity";
import { recordAudit } from "../audit/audit-trail";
import { db } from "../db";
import { auditActor } from "./audit-actor";
import { TRANSACTION_OPTIONS } from "./transaction-options";

/**
 * Cancels a call that waits for a person (`awaiting_confirmation` or `awaiting_approval`) through
 * `POST /api/v1/calls/{id}/cancel`: one transaction compare-and-sets the call → `cancelled` (error
 * `cancelled by <who>`), its pending approval, if any, → `denied` with reason `cancelled by <who>`
 * (denied rather than void: nothing changed in what it would run; a person decided), and writes
 * `call.cancelled`. Returns true when this request cancelled it, false when the call had already moved on.
 */
export async function cancelWaitingCall(callId: string, identity: Identity): Promise<boolean> {
  const who = auditActor(identity);
  return db().$transaction(async (tx) => {
    const now = new Date();
    const cancelled = await tx.call.updateMany({
      where: { id: callId, status: { in: ["awaiting_confirmation", "awaiting_approval"] } },
      data: { status: "cancelled", error: `cancelled by ${who}`, endedAt: now },
    });
    if (cancelled.count !== 1) return false;
    const approval = await tx.approval.findUnique({ where: { callId }, select: { id: true } });
    if (approval) {
      await tx.approval.updateMany({ where: { id: approval.id, status: "pending" }, data: { status: "denied", reason: `cancelled by ${who}`, decidedBy: identity.email, decidedAt: now } });
    }
    const call = await tx.call.findUniqueOrThrow({ where: { id: callId }, select: { skill: true, digest: true } });
    await recordAudit({ action: "call.cancelled", actor: who, actorId: identity.userId, callId, approvalId: approval?.id ?? null, skill: call.skill, digest: call.digest, details: { waited: approval ? "approval" : "confirmation" } }, tx);
    return true;
  }, TRANSACTION_OPTIONS);
}

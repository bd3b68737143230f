import type { Identity } from "@/lib/types/identity";
import { transitionCall } from "../calls/call-transitions";
import { modelTransaction } from "../db-transactions";
import { auditActor } from "./audit-actor";
import { approvalsChanged } from "./approval-feed";

/**
 * Cancels a call that waits for a person (`awaiting_confirmation` or `awaiting_approval`) through
 * `POST /api/v1/calls/{id}/cancel`: one transaction compare-and-sets the call → `cancelled` (error
 * `cancelled by <who>`) with `call.cancelled`, and its pending approval, if any, → `denied` with reason
 * `cancelled by <who>` (denied rather than void: nothing changed in what it would run; a person
 * decided). Returns true when this request cancelled it, false when the call had already moved on.
 */
export async function cancelWaitingCall(callId: string, identity: Identity): Promise<boolean> {
  const who = auditActor(identity);
  const cancelled = await modelTransaction(async (tx) => {
    const now = new Date();
    const approval = await tx.approval.findUnique({ where: { callId }, select: { id: true } });
    const ended = await transitionCall(
      {
        callId,
        from: ["awaiting_confirmation", "awaiting_approval"],
        to: "cancelled",
        changes: { error: `cancelled by ${who}`, endedAt: now },
        audit: { action: "call.cancelled", actor: who, actorId: identity.userId, callId, approvalId: approval?.id ?? null, details: { waited: approval ? "approval" : "confirmation" } },
      },
      tx,
    );
    if (!ended) return false;
    if (approval) {
      await tx.approval.updateMany({ where: { id: approval.id, status: "pending" }, data: { status: "denied", reason: `cancelled by ${who}`, decidedBy: identity.email, decidedAt: now } });
    }
    return true;
  });
  if (cancelled) approvalsChanged();
  return cancelled;
}

import { recordAudit } from "../audit/audit-trail";
import { transitionCall } from "../calls/call-transitions";
import { db } from "../db";
import { TRANSACTION_OPTIONS } from "../db-transactions";

/**
 * Voids an approval for good because what its call would run no longer matches the frozen digest
 * (DESIGN.md "Dual-sign rules"): compare-and-set `from` → `void` with the reason; when the approval was
 * still `pending`, its call goes `awaiting_approval` → `expired` with the reason in `error` in the same
 * transaction (an `approved` call was ended by the worker's refusal, which the console stored).
 * Writes `approval.void` (actor `system`) with the change. Returns true when this request made the
 * change, false when the approval had already left `from`.
 */
export async function voidApproval(approvalId: string, reason: string, from: "pending" | "approved"): Promise<boolean> {
  return db().$transaction(async (tx) => {
    const now = new Date();
    const voided = await tx.approval.updateMany({ where: { id: approvalId, status: from }, data: { status: "void", reason, decidedBy: "system", decidedAt: now } });
    if (voided.count !== 1) return false;
    const approval = await tx.approval.findUniqueOrThrow({ where: { id: approvalId }, include: { call: { select: { skill: true } } } });
    if (from === "pending") {
      await transitionCall({ callId: approval.callId, from: "awaiting_approval", to: "expired", changes: { error: `approval void: ${reason}`, endedAt: now }, audit: null }, tx);
    }
    await recordAudit(
      { action: "approval.void", actor: "system", callId: approval.callId, approvalId, skill: approval.call.skill, digest: approval.digest, details: { reason, from } },
      tx,
    );
    return true;
  }, TRANSACTION_OPTIONS);
}

/**
 * A worker refused to run an approved call because its copy no longer had the approved digest
 * (DESIGN.md: checked just before spawning): voids the call's `approved` approval, if it has one.
 * Returns the approval's id, or null when the call had none (a confirmed or directly run call).
 */
export async function voidApprovalOfCall(callId: string, reason: string): Promise<string | null> {
  const approval = await db().approval.findUnique({ where: { callId }, select: { id: true } });
  if (!approval) return null;
  await voidApproval(approval.id, reason, "approved");
  return approval.id;
}

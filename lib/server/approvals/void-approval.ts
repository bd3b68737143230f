import { recordAudit } from "../audit/audit-trail";
import { db } from "../db";
import { TRANSACTION_OPTIONS } from "./transaction-options";

/**
 * Voids an approval for good because what its call would run no longer matches the frozen digest
 * (DESIGN.md "Dual-sign rules"): compare-and-set `from` → `void` with the reason; when the approval was
 * still `pending`, its call goes `awaiting_approval` → `expired` with the reason in `error` in the same
 * transaction (an `approved` call is ended by the runner, which holds it). Writes `approval.void`
 * (actor `system`) with the change. Returns true when this request made the change, false when the
 * approval had already left `from`.
 */
export async function voidApproval(approvalId: string, reason: string, from: "pending" | "approved"): Promise<boolean> {
  return db().$transaction(async (tx) => {
    const now = new Date();
    const voided = await tx.approval.updateMany({ where: { id: approvalId, status: from }, data: { status: "void", reason, decidedBy: "system", decidedAt: now } });
    if (voided.count !== 1) return false;
    const approval = await tx.approval.findUniqueOrThrow({ where: { id: approvalId }, include: { call: { select: { skill: true } } } });
    if (from === "pending") {
      await tx.call.updateMany({
        where: { id: approval.callId, status: "awaiting_approval" },
        data: { status: "expired", error: `approval void: ${reason}`, endedAt: now },
      });
    }
    await recordAudit(
      { action: "approval.void", actor: "system", callId: approval.callId, approvalId, skill: approval.call.skill, digest: approval.digest, details: { reason, from } },
      tx,
    );
    return true;
  }, TRANSACTION_OPTIONS);
}

/**
 * The runner's digest recheck failed just before spawning a call (DESIGN.md: checked just before
 * spawning): voids the call's `approved` approval, if it has one. Returns the approval's id, or null
 * when the call had none (a confirmed or directly run call).
 */
export async function voidApprovalOfCall(callId: string, reason: string): Promise<string | null> {
  const approval = await db().approval.findUnique({ where: { callId }, select: { id: true } });
  if (!approval) return null;
  await voidApproval(approval.id, reason, "approved");
  return approval.id;
}

import { Prisma } from "@prisma/client";
import { recordAudit } from "../audit/audit-trail";
import { transitionCall } from "../calls/call-transitions";
import type { SqlRunner } from "../db-statements";
import { modelTransaction } from "../db-transactions";
import { approvalsChanged } from "./approval-feed";

/**
 * Voids an approval for good because what its call would run no longer matches the frozen digest
 * (DESIGN.md "Dual-sign rules"): compare-and-set `from` → `void` with the reason; when the approval was
 * still `pending`, its call goes `awaiting_approval` → `expired` with the reason in `error` in the same
 * transaction (an `approved` call was ended by the worker's refusal, which the console stored).
 * Writes `approval.void` (actor `system`) with the change. Returns true when this request made the
 * change, false when the approval had already left `from`.
 */
export async function voidApproval(approvalId: string, reason: string, from: "pending" | "approved"): Promise<boolean> {
  const changed = await modelTransaction(async (tx) => {
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
  });
  if (changed) approvalsChanged();
  return changed;
}

/**
 * A worker refused to run an approved call because its copy no longer had the approved digest
 * (DESIGN.md: checked just before spawning): voids the call's `approved` approval, if it has one, in
 * `tx` — the transaction that ends the call `expired`, so no reader (on any replica) ever sees the
 * call ended while its approval still says approved. Writes `approval.void` (actor `system`) with it.
 * Returns the approval's id, or null when the call had none (a confirmed or directly run call); the
 * caller calls approvalsChanged() once `tx` is committed.
 */
export async function voidApprovalOfCall(tx: SqlRunner, callId: string, reason: string): Promise<string | null> {
  const now = new Date();
  const [voided] = await tx.$queryRaw<Array<{ id: string; digest: string }>>`
    UPDATE "Approval" SET "status" = 'void', "reason" = ${reason}, "decidedBy" = 'system', "decidedAt" = ${now}, "updatedAt" = ${now}
    WHERE "callId" = ${callId} AND "status" = 'approved' RETURNING "id", "digest"`;
  if (!voided) return null;
  const [call] = await tx.$queryRaw<Array<{ skill: string }>>`SELECT "skill" FROM "Call" WHERE "id" = ${callId}`;
  await recordAudit({ action: "approval.void", actor: "system", callId, approvalId: voided.id, skill: call?.skill ?? null, digest: voided.digest, details: { reason, from: "approved" } }, tx);
  return voided.id;
}

/**
 * Voids, in `tx`, every `pending` approval of a call of one of `skills` (DESIGN.md "Skill secrets": a
 * secret change voids pending approvals of the skills it feeds; what the approvers were shown would no
 * longer be what runs): each approval `pending` → `void` with `reason`, its call `awaiting_approval` →
 * `expired` with the reason in `error`, and an `approval.void` entry (actor `system`), all in the
 * caller's transaction. Returns the voided approvals' ids (the caller calls approvalsChanged() once `tx`
 * is committed); none when `skills` is empty.
 */
export async function voidPendingApprovalsOfSkills(tx: Prisma.TransactionClient, skills: readonly string[], reason: string): Promise<string[]> {
  if (skills.length === 0) return [];
  const now = new Date();
  const voided = await tx.$queryRaw<Array<{ id: string; callId: string; digest: string }>>`
    UPDATE "Approval" SET "status" = 'void', "reason" = ${reason}, "decidedBy" = 'system', "decidedAt" = ${now}, "updatedAt" = ${now}
    WHERE "status" = 'pending' AND "callId" IN (SELECT "id" FROM "Call" WHERE "skill" IN (${Prisma.join([...skills])}))
    RETURNING "id", "callId", "digest"`;
  for (const approval of voided) {
    const call = await transitionCall({ callId: approval.callId, from: "awaiting_approval", to: "expired", changes: { error: `approval void: ${reason}`, endedAt: now }, audit: null }, tx);
    await recordAudit({ action: "approval.void", actor: "system", callId: approval.callId, approvalId: approval.id, skill: call?.skill ?? null, digest: approval.digest, details: { reason, from: "pending" } }, tx);
  }
  return voided.map((approval) => approval.id);
}

import { recordAudit } from "../audit/audit-trail";
import { transitionCall } from "../calls/call-transitions";
import { db } from "../db";
import { modelTransaction } from "../db-transactions";
import { config } from "../env";
import { approvalsChanged } from "./approval-feed";

/**
 * Expires one pending approval past its `expiresAt` (DESIGN.md: a pending approval expires after a
 * TTL): compare-and-set `pending` → `expired`, its call `awaiting_approval` → `expired`, and an
 * `approval.expired` audit entry, in one transaction. Returns true when this request expired it.
 */
export async function expireApproval(approvalId: string, now = new Date()): Promise<boolean> {
  const expired = await modelTransaction(async (tx) => {
    const reason = `no two signatures within ${config().approvalTtlSeconds} s (APPROVAL_TTL_SECONDS)`;
    const due = await tx.approval.updateMany({
      where: { id: approvalId, status: "pending", expiresAt: { lte: now } },
      data: { status: "expired", reason, decidedBy: "system", decidedAt: now },
    });
    if (due.count !== 1) return false;
    const approval = await tx.approval.findUniqueOrThrow({ where: { id: approvalId }, include: { call: { select: { skill: true } } } });
    await transitionCall({ callId: approval.callId, from: "awaiting_approval", to: "expired", changes: { error: `approval expired: ${reason}`, endedAt: now }, audit: null }, tx);
    await recordAudit({ action: "approval.expired", actor: "system", callId: approval.callId, approvalId, skill: approval.call.skill, digest: approval.digest, details: { expiresAt: approval.expiresAt.toISOString() } }, tx);
    return true;
  });
  if (expired) approvalsChanged();
  return expired;
}

/**
 * Expires a call left `awaiting_confirmation` for longer than APPROVAL_TTL_SECONDS (issue 4 brief):
 * compare-and-set to `expired` with a `call.expired` audit entry. Returns true when this request did it.
 */
export async function expireConfirmation(callId: string, now = new Date()): Promise<boolean> {
  const ttlSeconds = config().approvalTtlSeconds;
  const row = await transitionCall({
    callId,
    from: "awaiting_confirmation",
    to: "expired",
    where: { createdAtOrBefore: new Date(now.getTime() - ttlSeconds * 1000) },
    changes: { error: `not confirmed within ${ttlSeconds} s (APPROVAL_TTL_SECONDS)`, endedAt: now },
    audit: { action: "call.expired", actor: "system", callId, details: { awaited: "confirmation" } },
  });
  if (row) approvalsChanged();
  return row !== null;
}

/**
 * The expiry sweep (run every few seconds by the console, and lazily before approvals are read or
 * signed): expires every pending approval past its `expiresAt` and every call awaiting confirmation
 * past the TTL. Safe with several consoles: each change is a compare-and-set. Returns how many it expired.
 */
export async function expireDueApprovals(now = new Date()): Promise<number> {
  const due = await db().approval.findMany({ where: { status: "pending", expiresAt: { lte: now } }, select: { id: true }, take: 500 });
  const stale = await db().call.findMany({
    where: { status: "awaiting_confirmation", createdAt: { lte: new Date(now.getTime() - config().approvalTtlSeconds * 1000) } },
    select: { id: true },
    take: 500,
  });
  let count = 0;
  for (const { id } of due) if (await expireApproval(id, now)) count += 1;
  for (const { id } of stale) if (await expireConfirmation(id, now)) count += 1;
  return count;
}


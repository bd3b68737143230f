import type { Approval } from "@/lib/types/approval";
import type { Identity } from "@/lib/types/identity";
import { recordAudit } from "../audit/audit-trail";
import { transitionCall } from "../calls/call-transitions";
import { holdsRoleNow } from "../auth/users";
import { db } from "../db";
import { AppError } from "../errors";
import { refuseUnknownFields } from "../http/known-fields";
import { requirePerson } from "./audit-actor";
import { expireApproval } from "./expire-approvals";
import { getApproval } from "./read-approvals";
import { modelTransaction } from "../db-transactions";
import { markAboutExisting } from "../audit/refused-attempts";
import { approvalsChanged } from "./approval-feed";

/** Longest reason a denial may give, in characters. */
export const MAX_DENY_REASON_LENGTH = 500;

/**
 * Checks the body of `POST /api/v1/approvals/{id}/deny`: `{"reason": "..."}` with a reason of 1–500
 * characters (trimmed). Returns the reason; throws AppError `bad_request` otherwise.
 */
export function parseDenyRequest(body: unknown): string {
  if (body === null || typeof body !== "object" || Array.isArray(body)) throw new AppError("bad_request", 'the body must be {"reason": "..."}');
  refuseUnknownFields(body, ["reason"], "a denial");
  const { reason } = body as { reason?: unknown };
  if (typeof reason !== "string" || reason.trim() === "") throw new AppError("bad_request", "a denial needs a reason");
  if (reason.trim().length > MAX_DENY_REASON_LENGTH) throw new AppError("bad_request", `the reason must be at most ${MAX_DENY_REASON_LENGTH} characters`);
  return reason.trim();
}

/**
 * Denies an approval (`POST /api/v1/approvals/{id}/deny`, approver and above, a person; DESIGN.md: any
 * approver may deny, terminal): one transaction compare-and-sets the approval `pending` (and not past
 * its TTL) → `denied` with who and why, its call `awaiting_approval` → `denied`, and writes
 * `approval.denied`. Returns the Approval. Throws `not_found`, `forbidden` (a token, a demoted denier: the transaction is rolled back), `conflict` (409:
 * no longer pending, or expired).
 */
export async function denyApproval(approvalId: string, identity: Identity, reason: string): Promise<Approval> {
  requirePerson(identity, "deny approvals");
  const row = await db().approval.findUnique({ where: { id: approvalId }, include: { call: { select: { skill: true } } } });
  if (!row) throw new AppError("not_found", `no approval with id ${JSON.stringify(approvalId)}`);
  const now = new Date();
  if (row.status === "pending" && row.expiresAt <= now) {
    await expireApproval(approvalId, now);
    throw new AppError("conflict", `approval ${approvalId} expired at ${row.expiresAt.toISOString()}`);
  }
  const denied = await modelTransaction(async (tx) => {
    const changed = await tx.approval.updateMany({
      where: { id: approvalId, status: "pending", expiresAt: { gt: now } },
      data: { status: "denied", reason, decidedBy: identity.email, decidedAt: now },
    });
    if (changed.count !== 1) return false;
    // The role is read again under the write lock (as a signature's is): a demotion that landed after
    // this request was identified must not let it deny.
    if (!(await holdsRoleNow(tx, identity.userId!, "approver"))) throw markAboutExisting(new AppError("forbidden", `${identity.email} is no longer an approver; the approval was not denied`));
    await transitionCall({ callId: row.callId, from: "awaiting_approval", to: "denied", changes: { error: `denied by ${identity.email}: ${reason}`, endedAt: now }, audit: null }, tx);
    await recordAudit({ action: "approval.denied", actor: identity.email, actorId: identity.userId, callId: row.callId, approvalId, skill: row.call.skill, digest: row.digest, details: { reason } }, tx);
    return true;
  });
  if (denied) approvalsChanged();
  if (!denied) {
    const current = await db().approval.findUniqueOrThrow({ where: { id: approvalId }, select: { status: true } });
    throw new AppError("conflict", `approval ${approvalId} is ${current.status}, not pending`);
  }
  return getApproval(approvalId);
}

import { randomUUID } from "node:crypto";
import type { Call as CallRow, Prisma } from "@prisma/client";
import { recordAudit, type AuditInput } from "../audit/audit-trail";
import { db } from "../db";
import { config } from "../env";
import type { CallDigest } from "./call-digest";
import { TRANSACTION_OPTIONS } from "./transaction-options";

/** A call row about to be stored, everything but its status. */
export type NewCall = Omit<Prisma.CallUncheckedCreateInput, "status">;

/**
 * Stores a mutating call that waits for one person's confirmation (DESIGN.md policy table): status
 * `awaiting_confirmation`, with its `call.requested` audit entry (`requested`) in the same transaction.
 * Returns the stored row.
 */
export async function storeAwaitingConfirmation(call: NewCall, requested: AuditInput): Promise<CallRow> {
  return db().$transaction(async (tx) => {
    const created = await tx.call.create({ data: { ...call, status: "awaiting_confirmation" } });
    await recordAudit(requested, tx);
    return created;
  }, TRANSACTION_OPTIONS);
}

/**
 * Stores a dangerous call that waits for two approvers (DESIGN.md "Dual-sign rules"): the call
 * `awaiting_approval` and its Approval `pending` — bound to `digest` (its canonical input kept for
 * approvers to read), 2 signatures required, expiring after APPROVAL_TTL_SECONDS — with the
 * `call.requested` and `approval.requested` audit entries, in one transaction. Returns the call row.
 */
export async function requestApproval(call: NewCall & { id: string; requestedBy: string; requesterId: string }, digest: CallDigest, requested: AuditInput): Promise<CallRow> {
  const approvalId = randomUUID();
  const expiresAt = new Date(Date.now() + config().approvalTtlSeconds * 1000);
  return db().$transaction(async (tx) => {
    const created = await tx.call.create({ data: { ...call, status: "awaiting_approval" } });
    await tx.approval.create({
      data: { id: approvalId, callId: call.id, status: "pending", digest: digest.digest, digestInput: digest.text, requestedBy: call.requestedBy, requesterId: call.requesterId, required: 2, expiresAt },
    });
    await recordAudit({ ...requested, approvalId }, tx);
    await recordAudit({ ...requested, approvalId, action: "approval.requested", details: { required: 2, expiresAt: expiresAt.toISOString() } }, tx);
    return created;
  }, TRANSACTION_OPTIONS);
}

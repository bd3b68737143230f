import type { Approval } from "@/lib/types/approval";
import type { Identity } from "@/lib/types/identity";
import { recordAudit } from "../audit/audit-trail";
import { markAboutExisting, markRefusal } from "../audit/refused-attempts";
import { holdsRoleNow } from "../auth/users";
import { announceQueued } from "../calls/call-queue";
import { transitionCall } from "../calls/call-transitions";
import { db } from "../db";
import { AppError } from "../errors";
import { getRegistry } from "../skills/registry";
import { requirePerson } from "./audit-actor";
import { digestMismatch } from "../skills/plan-on-console";
import { expireApproval } from "./expire-approvals";
import { currentPolicyRefusal, denyByCurrentPolicy } from "./policy-refusal";
import { getApproval } from "./read-approvals";
import { COUNTING_SIGNATURES, signRefusal } from "./signature-rules";
import { modelTransaction } from "../db-transactions";
import { voidApproval } from "./void-approval";
import { approvalsChanged } from "./approval-feed";

type SignOutcome = "not_pending" | "already_signed" | "not_signer" | "signed" | "start";

/**
 * Signs an approval (`POST /api/v1/approvals/{id}/sign`, approver and above; DESIGN.md "Dual-sign
 * rules"). Checks the pure rules (signRefusal: a person, not the requester, once, only while pending and
 * before expiry; an approval past its TTL is expired here), then recomputes the call's digest from the
 * files on disk — a mismatch voids the approval for good and ends the call `expired`. Then one
 * transaction that opens with a compare-and-set write on the still-pending approval (so signers in this
 * and other consoles are serialised by the database's write lock) records the signature (unique per
 * approval and person, whatever their sessions) with its `approval.signed` audit entry, counts the
 * signatures that count (COUNTING_SIGNATURES: signers approver+ ever since they signed), and at `required` moves the approval `pending` →
 * `approved` and the call `awaiting_approval` → `queued` for a worker holding the approved skill digest
 * (the call's skillDigest). The compare-and-set makes that move once, and a worker's claim of the
 * queued call is another, so the call runs exactly once. Returns the Approval as it
 * is now. Throws `not_found`, `forbidden` (403: token, requester) or `conflict` (409: already signed,
 * not pending, expired, void).
 */
export async function signApproval(approvalId: string, identity: Identity): Promise<Approval> {
  requirePerson(identity, "sign approvals");
  let row = await db().approval.findUnique({ where: { id: approvalId }, include: { call: true } });
  if (!row) throw new AppError("not_found", `no approval with id ${JSON.stringify(approvalId)}`);
  const now = new Date();
  if (row.status === "pending" && row.expiresAt <= now && (await expireApproval(approvalId, now))) {
    row = await db().approval.findUniqueOrThrow({ where: { id: approvalId }, include: { call: true } });
  }
  const earlier = await db().approvalSignature.findUnique({ where: { approvalId_userId: { approvalId, userId: identity.userId } }, select: { voidedAt: true, voidReason: true } });
  const refusal = signRefusal({
    approval: row,
    signer: { userId: identity.userId, via: identity.via },
    alreadySigned: earlier !== null,
    voidedBecause: earlier?.voidedAt ? (earlier.voidReason ?? "its signer lost the approver role") : null,
    now,
  });
  if (refusal) {
    // About this approval, which exists: always on the trail (markAboutExisting).
    const refused = markAboutExisting(new AppError(refusal.code, refusal.message));
    // Signing again (after a signature, or after a demotion voided it) is a refused attempt of this signer's.
    throw earlier !== null ? markRefusal(refused) : refused;
  }

  const skill = (await getRegistry()).get(row.call.skill);
  const mismatch = await digestMismatch(skill, { id: row.callId, args: row.call.args, digest: row.digest }, row.skillInput);
  if (mismatch || !skill) {
    const reason = mismatch ?? "the skill is no longer registered";
    await voidApproval(approvalId, reason, "pending");
    throw new AppError("conflict", `approval ${approvalId} is void: ${reason}`);
  }
  const policyRefusal = await currentPolicyRefusal(row.call, skill);
  if (policyRefusal) {
    await denyByCurrentPolicy(row.callId, policyRefusal, identity.email);
    throw markAboutExisting(new AppError("forbidden", `approval ${approvalId} cannot be signed: the current policy refuses the call (${policyRefusal})`));
  }

  const { callId, digest, required } = row;
  const outcome = await modelTransaction(async (tx): Promise<SignOutcome> => {
    const stillPending = await tx.approval.updateMany({ where: { id: approvalId, status: "pending", expiresAt: { gt: now } }, data: { updatedAt: new Date() } });
    if (stillPending.count !== 1) return "not_pending";
    // The role is read again under the write lock: a demotion that landed after this request was
    // identified must not let its signature in (a demotion voids only signatures already stored).
    if (!(await holdsRoleNow(tx, identity.userId, "approver"))) return "not_signer";
    if ((await tx.approvalSignature.count({ where: { approvalId, userId: identity.userId } })) > 0) return "already_signed";
    await tx.approvalSignature.create({ data: { approvalId, userId: identity.userId, email: identity.email, digest } });
    await recordAudit({ action: "approval.signed", actor: identity.email, actorId: identity.userId, callId, approvalId, skill: skill.name, digest }, tx);
    const signatures = await tx.approvalSignature.findMany({ where: { approvalId, ...COUNTING_SIGNATURES }, select: { email: true }, orderBy: { id: "asc" } });
    if (signatures.length < required) return "signed";
    const approved = await tx.approval.updateMany({ where: { id: approvalId, status: "pending" }, data: { status: "approved", decidedBy: identity.email, decidedAt: new Date() } });
    if (approved.count !== 1) return "signed";
    const queued = await transitionCall({ callId, from: "awaiting_approval", to: "queued", audit: null }, tx);
    await recordAudit(
      { action: "approval.approved", actor: identity.email, actorId: identity.userId, callId, approvalId, skill: skill.name, digest, details: { signers: signatures.map((signature) => signature.email) } },
      tx,
    );
    return queued ? "start" : "signed";
  });

  if (outcome === "already_signed") throw markAboutExisting(markRefusal(new AppError("conflict", `you already signed approval ${approvalId}`)));
  if (outcome === "not_signer") throw markAboutExisting(new AppError("forbidden", `${identity.email} is no longer an approver; the signature was not recorded`));
  if (outcome === "not_pending") {
    const current = await db().approval.findUniqueOrThrow({ where: { id: approvalId } });
    const late = signRefusal({ approval: current, signer: { userId: identity.userId, via: identity.via }, alreadySigned: false, now });
    throw new AppError("conflict", late?.message ?? `approval ${approvalId} is ${current.status}, not pending`);
  }
  if (outcome === "start") announceQueued();
  if (outcome === "start" || outcome === "signed") approvalsChanged();
  return getApproval(approvalId);
}

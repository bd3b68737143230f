import type { Role } from "@/lib/types/identity";

/** Roles whose signatures count (DESIGN.md "Policy": approver and above). */
export const SIGNING_ROLES: readonly Role[] = ["approver", "admin"];

/**
 * True when a signature counts toward an approval now (issue 10 point 4): its signer holds approver+
 * and has held it continuously since signing — a demotion voids the signature for good (`voidedAt`,
 * set by setUserRole), so a re-promotion does not bring it back.
 */
export function signatureCounts(signature: { voidedAt: Date | null; role: string }): boolean {
  return signature.voidedAt === null && (SIGNING_ROLES as readonly string[]).includes(signature.role);
}

/** The Prisma filter of the signatures that count (signatureCounts, as a query). */
export const COUNTING_SIGNATURES: { voidedAt: null; user: { role: { in: string[] } } } = { voidedAt: null, user: { role: { in: [...SIGNING_ROLES] } } };

/** What a sign request is checked against: the approval as stored and the person signing. */
export interface SignAttempt {
  approval: { id: string; status: string; requesterId: string; expiresAt: Date };
  signer: { userId: string; via: "session" | "token" };
  /** True when this person already has a signature on the approval (whatever session they used). */
  alreadySigned: boolean;
  /** Why that signature was voided (a demotion), when it was; absent or null otherwise. */
  voidedBecause?: string | null;
  now: Date;
}

/** Why a sign request is refused: `forbidden` (403) or `conflict` (409), with the message shown. */
export interface Refusal {
  code: "forbidden" | "conflict";
  message: string;
}

/**
 * The pure dual-sign rules for one signature (DESIGN.md "Dual-sign rules", issue 4 point 5), in order:
 * a token never signs (403); only a `pending` approval before its `expiresAt` takes signatures (409);
 * the requester — the person, or the owner of the token that made the call — never signs their own
 * call (403); one person signs once (409), and a signature voided by a demotion cannot be given again
 * (409). Returns the refusal, or null when the signature may be
 * recorded. The verb applying it re-checks with a compare-and-set and the unique (approval, user) key.
 */
export function signRefusal({ approval, signer, alreadySigned, voidedBecause, now }: SignAttempt): Refusal | null {
  if (signer.via !== "session") return { code: "forbidden", message: "a person must sign approvals; API tokens cannot" };
  if (approval.status !== "pending") return { code: "conflict", message: `approval ${approval.id} is ${approval.status}, not pending` };
  if (approval.expiresAt.getTime() <= now.getTime()) return { code: "conflict", message: `approval ${approval.id} expired at ${approval.expiresAt.toISOString()}` };
  if (approval.requesterId === signer.userId) return { code: "forbidden", message: "the requester cannot sign their own call" };
  if (alreadySigned && voidedBecause) return { code: "conflict", message: `your signature on approval ${approval.id} was voided (${voidedBecause}); it cannot be given again` };
  if (alreadySigned) return { code: "conflict", message: `you already signed approval ${approval.id}` };
  return null;
}

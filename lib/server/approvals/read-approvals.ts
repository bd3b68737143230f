import type { Prisma } from "@prisma/client";
import { APPROVAL_STATUSES, type Approval, type ApprovalStatus } from "@/lib/types/approval";
import { db } from "../db";
import { AppError } from "../errors";
import { toCall } from "../calls/call-record";
import { expireDueApprovals } from "./expire-approvals";
import { signatureCounts } from "./signature-rules";

const APPROVAL_INCLUDE = {
  call: true,
  signatures: { include: { user: { select: { role: true } } }, orderBy: { at: "asc" } },
} satisfies Prisma.ApprovalInclude;

type ApprovalRow = Prisma.ApprovalGetPayload<{ include: typeof APPROVAL_INCLUDE }>;

/**
 * Maps an approval row (with its call and signatures) to the API's Approval (DESIGN.md "Approval").
 * `signatures` lists only those that still count (signatureCounts: signers who have been approver or
 * admin ever since they signed).
 */
export function toApproval(row: ApprovalRow): Approval {
  let digestInput: Record<string, unknown> = {};
  try {
    digestInput = JSON.parse(row.digestInput) as Record<string, unknown>;
  } catch {
    // Shown as empty rather than failing the whole queue.
  }
  const skillInput = parseSkillInput(row.skillInput);
  return {
    id: row.id,
    callId: row.callId,
    status: row.status as ApprovalStatus,
    digest: row.digest,
    requestedBy: row.requestedBy,
    signatures: row.signatures
      .filter((signature) => signatureCounts({ voidedAt: signature.voidedAt, role: signature.user.role }))
      .map((signature) => ({ by: signature.email, at: signature.at.toISOString() })),
    required: row.required,
    expiresAt: row.expiresAt.toISOString(),
    decidedBy: row.decidedBy,
    reason: row.reason,
    createdAt: row.createdAt.toISOString(),
    digestInput,
    call: toCall(row.call),
    // Only dangerous skills need two signatures (DESIGN.md policy table).
    skillClass: "dangerous",
    sandbox: skillInput?.sandbox ?? null,
    skillFiles: skillInput?.files ? skillInput.files.filter((file) => Array.isArray(file) && file[1] !== "d").length : null,
  };
}

/** The parts of an approval's frozen skill digest input it shows; null when absent or unreadable. */
function parseSkillInput(text: string | null): { sandbox: Approval["sandbox"]; files: unknown[] | null } | null {
  if (!text) return null;
  try {
    const value = JSON.parse(text) as { sandbox?: Approval["sandbox"]; files?: unknown };
    return { sandbox: value.sandbox ?? null, files: Array.isArray(value.files) ? value.files : null };
  } catch {
    return null;
  }
}

/** Largest page of `GET /api/v1/approvals`. */
export const MAX_APPROVAL_PAGE = 500;

/**
 * Approvals newest first (`GET /api/v1/approvals?status=…`): every status when `status` is absent, only
 * the one guarding call `callId` when given, at most `limit` (default 100, capped at MAX_APPROVAL_PAGE). Expires due approvals first, so a pending
 * one past its TTL is never listed as pending. Throws AppError `bad_request` for an unknown status or a
 * limit that is not a positive integer.
 */
export async function listApprovals(filter: { status?: string; limit?: number; callId?: string } = {}): Promise<Approval[]> {
  if (filter.status !== undefined && !(APPROVAL_STATUSES as readonly string[]).includes(filter.status)) {
    throw new AppError("bad_request", `unknown status ${JSON.stringify(filter.status)}; one of ${APPROVAL_STATUSES.join(", ")}`);
  }
  const limit = filter.limit ?? 100;
  if (!Number.isInteger(limit) || limit < 1) throw new AppError("bad_request", "limit must be a positive integer");
  await expireDueApprovals();
  const rows = await db().approval.findMany({
    where: { ...(filter.status ? { status: filter.status } : {}), ...(filter.callId ? { callId: filter.callId } : {}) },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: Math.min(limit, MAX_APPROVAL_PAGE),
    include: APPROVAL_INCLUDE,
  });
  return rows.map(toApproval);
}

/** One approval as the API shows it, or AppError `not_found`. */
export async function getApproval(id: string): Promise<Approval> {
  const row = await db().approval.findUnique({ where: { id }, include: APPROVAL_INCLUDE });
  if (!row) throw new AppError("not_found", `no approval with id ${JSON.stringify(id)}`);
  return toApproval(row);
}

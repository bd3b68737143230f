import { Prisma } from "@prisma/client";
import type { Call } from "@/lib/types/call";
import { APPROVAL_STATUSES, type Approval, type ApprovalStatus } from "@/lib/types/approval";
import { db } from "../db";
import { AppError } from "../errors";
import { toCall, toListedCall } from "../calls/call-record";
import { LISTING_INLINE_MAX_BYTES, payloadBytesSql, selectCallSummariesSql } from "../calls/call-sql";
import { IN_PARTS, payloadParts } from "../calls/call-payloads";
import { statements } from "../db-statements";
import { defineStoredJson } from "../http/stored-json";
import { expireDueApprovals } from "./expire-approvals";
import { signatureCounts } from "./signature-rules";

const SIGNATURES_INCLUDE = {
  signatures: { include: { user: { select: { role: true } } }, orderBy: { at: "asc" } },
} satisfies Prisma.ApprovalInclude;

const APPROVAL_INCLUDE = { call: true, ...SIGNATURES_INCLUDE } satisfies Prisma.ApprovalInclude;

type ApprovalRow = Prisma.ApprovalGetPayload<{ include: typeof SIGNATURES_INCLUDE }>;

/**
 * Maps an approval row (with its signatures) and its call to the API's Approval (DESIGN.md
 * "Approval"). `signatures` lists only those that still count (signatureCounts: signers who have been
 * approver or admin ever since they signed). `digestInput` null: a listing left it out (its size is
 * `digestInputBytes`).
 */
export function toApproval(row: Omit<ApprovalRow, "digestInput"> & { digestInput: string | null }, call: Call, digestInputBytes?: number): Approval {
  const skillInput = parseSkillInput(row.skillInput);
  const approval: Approval = {
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
    digestInput: null,
    ...(row.digestInput === null && digestInputBytes !== undefined ? { digestInputBytes } : {}),
    call,
    // Only dangerous skills need two signatures (DESIGN.md policy table).
    skillClass: "dangerous",
    sandbox: skillInput?.sandbox ?? null,
    skillFiles: skillInput?.files ? skillInput.files.filter((file) => Array.isArray(file) && file[1] !== "d").length : null,
  };
  // The canonical JSON the console wrote when the call was requested (it holds the args): served as stored.
  if (row.digestInput !== null) defineStoredJson(approval, "digestInput", row.digestInput === IN_PARTS ? payloadParts(row.callId, "digestInput") : row.digestInput, null);
  return approval;
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
    include: SIGNATURES_INCLUDE,
    omit: { digestInput: true },
  });
  if (rows.length === 0) return [];
  // The calls and digest inputs as a listing reads them: texts over LISTING_INLINE_MAX_BYTES left out, never read.
  const ids = rows.map((row) => row.id);
  const callIds = rows.map((row) => row.callId);
  const calls = new Map((await selectCallSummariesSql(statements(), Prisma.sql`"id" IN (${Prisma.join(callIds)})`, callIds.length)).map((row) => [row.id, toListedCall(row)]));
  const inputs = new Map(
    (
      await statements().$queryRaw<Array<{ id: string; digestInput: string | null; digestInputBytes: number }>>`
        SELECT "id", CASE WHEN octet_length("digestInput") BETWEEN 1 AND ${LISTING_INLINE_MAX_BYTES} THEN "digestInput" END AS "digestInput",
          CASE WHEN octet_length("digestInput") = 0 THEN (${Prisma.raw(payloadBytesSql("digestInput", `"Approval"."callId"`))}) ELSE octet_length("digestInput") END AS "digestInputBytes"
        FROM "Approval" WHERE "id" IN (${Prisma.join(ids)})`
    ).map((row) => [row.id, row]),
  );
  return rows.flatMap((row) => {
    const call = calls.get(row.callId);
    const input = inputs.get(row.id);
    return call && input ? [toApproval({ ...row, digestInput: input.digestInput }, call, input.digestInputBytes)] : [];
  });
}

/** One approval as the API shows it, or AppError `not_found`. */
export async function getApproval(id: string): Promise<Approval> {
  const row = await db().approval.findUnique({ where: { id }, include: APPROVAL_INCLUDE });
  if (!row) throw new AppError("not_found", `no approval with id ${JSON.stringify(id)}`);
  return toApproval(row, toCall(row.call));
}

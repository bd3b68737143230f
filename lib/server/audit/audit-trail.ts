import type { AuditEntry } from "@/lib/types/audit";
import { db } from "../db";
import { statements, type SqlRunner } from "../db-statements";

/** What one audit entry records: who (`actor`: an email, `token:<name> (<owner>)`, or `system`), what, about which call. */
export interface AuditInput {
  action: string;
  actor: string;
  actorId?: string | null;
  callId?: string | null;
  approvalId?: string | null;
  skill?: string | null;
  digest?: string | null;
  details?: Record<string, unknown>;
}

/** Statements or a transaction (ours or Prisma's), so an entry can be written with the change it records. */
type Writer = Pick<SqlRunner, "$executeRaw">;

/**
 * Appends one entry to the audit trail (issue 4, point 5: requests, confirmations, signatures,
 * denials, expiries, voids and executions, with who, what, when and the digest). Rows are never
 * changed or removed: database triggers refuse UPDATE and DELETE on the table. Pass `writer` (a
 * transaction) to write the entry atomically with the change it records.
 */
export async function recordAudit(input: AuditInput, writer: Writer = statements()): Promise<void> {
  // Plain SQL: an entry is written with most of the call path's changes, and a model insert costs ~1 ms of CPU more.
  await writer.$executeRaw`INSERT INTO "AuditEvent" ("at", "action", "actor", "actorId", "callId", "approvalId", "skill", "digest", "details")
    VALUES (${new Date()}, ${input.action}, ${input.actor}, ${input.actorId ?? null}, ${input.callId ?? null}, ${input.approvalId ?? null}, ${input.skill ?? null}, ${input.digest ?? null}, ${JSON.stringify(input.details ?? {})})`;
}

/**
 * Audit entries, newest first (`GET /api/v1/audit`): at most `limit` (1–500, default 100), only those
 * with an id below `before` when given (paging), only one call's when `callId` is given.
 */
export async function listAudit(options: { limit?: number; before?: number; callId?: string } = {}): Promise<AuditEntry[]> {
  const limit = Math.min(500, Math.max(1, options.limit ?? 100));
  const rows = await db().auditEvent.findMany({
    where: { ...(options.before !== undefined ? { id: { lt: options.before } } : {}), ...(options.callId ? { callId: options.callId } : {}) },
    orderBy: { id: "desc" },
    take: limit,
  });
  return rows.map((row) => ({
    id: row.id,
    at: row.at.toISOString(),
    action: row.action,
    actor: row.actor,
    callId: row.callId,
    approvalId: row.approvalId,
    skill: row.skill,
    digest: row.digest,
    details: JSON.parse(row.details) as Record<string, unknown>,
  }));
}

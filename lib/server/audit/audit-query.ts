import type { AuditEvent, Prisma } from "@prisma/client";
import type { AuditEntry, AuditFilters } from "@/lib/types/audit";
import { db } from "../db";
import { maskJsonValue, type SecretMask } from "../secrets/secret-masking";

/**
 * The condition on AuditEvent rows that `filters` keep (issue 14 point 6): an equality on each given
 * column, except an action ending in `.*`, which keeps every action under that prefix (`approval.*` →
 * approval.requested, approval.signed, …). Reads the database for a prefix only: the actions it covers
 * are found once (GROUP BY over the few distinct actions) and matched exactly, because SQL's LIKE reads
 * the `_` of `worker_token.*` as a wildcard (and ignores case on SQLite). Callers add the id cursor.
 */
export async function auditWhere(filters: AuditFilters): Promise<Prisma.AuditEventWhereInput> {
  const where: Prisma.AuditEventWhereInput = {};
  if (filters.actor !== undefined) where.actor = filters.actor;
  if (filters.skill !== undefined) where.skill = filters.skill;
  if (filters.callId !== undefined) where.callId = filters.callId;
  if (filters.action !== undefined && filters.action.endsWith(".*")) {
    const prefix = filters.action.slice(0, -1);
    const groups = await db().auditEvent.groupBy({ by: ["action"], where: { action: { startsWith: prefix } } });
    where.action = { in: groups.map((group) => group.action).filter((action) => action.startsWith(prefix)) };
  } else if (filters.action !== undefined) where.action = filters.action;
  return where;
}

/**
 * An AuditEvent row as the API's AuditEntry, every text (actor, skill, ids, digest, and each string and
 * key of the details) passed through `mask` (maskOfAllSecrets: no secret's value leaves in the trail or
 * its exports). Pure.
 */
export function toAuditEntry(row: AuditEvent, mask: SecretMask): AuditEntry {
  const text = (value: string | null) => (value === null ? null : mask(value));
  return {
    id: row.id,
    at: row.at.toISOString(),
    action: mask(row.action),
    actor: mask(row.actor),
    callId: text(row.callId),
    approvalId: text(row.approvalId),
    skill: text(row.skill),
    digest: text(row.digest),
    details: maskJsonValue(JSON.parse(row.details), mask) as Record<string, unknown>,
  };
}

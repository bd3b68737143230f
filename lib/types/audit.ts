/** One entry of the append-only audit trail (GET /api/v1/audit). `at` is ISO-8601. */
export interface AuditEntry {
  id: number;
  at: string;
  action: string;
  actor: string;
  callId: string | null;
  approvalId: string | null;
  skill: string | null;
  digest: string | null;
  details: Record<string, unknown>;
}

/**
 * What narrows the audit trail (issue 14 point 6), as the query parameters of `GET /api/v1/audit`,
 * `GET /api/v1/audit/export` and the Audit page's URL, all of the same names. Each absent field keeps
 * every entry; the given ones must all hold.
 * - `actor`: exactly this actor (an email, `token:<name> (<owner>)`, `worker-token:<name>`, `system`, `anonymous`);
 * - `skill`: exactly this skill name;
 * - `action`: exactly this action (`approval.signed`), or every action under a prefix when it ends in
 *   `.*` (`approval.*`: approval.requested, approval.signed, …);
 * - `callId`: one call's entries.
 */
export interface AuditFilters {
  actor?: string;
  skill?: string;
  action?: string;
  callId?: string;
}

/** The names of AuditFilters, in the order the page and the exports show them. */
export const AUDIT_FILTER_NAMES = ["actor", "skill", "action", "callId"] as const satisfies readonly (keyof AuditFilters)[];

/** The formats of `GET /api/v1/audit/export`: RFC 4180 CSV, or JSON lines (one AuditEntry per line). */
export type AuditExportFormat = "csv" | "jsonl";

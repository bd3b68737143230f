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

import { listAudit } from "@/lib/server/audit/audit-trail";
import { apiRoute } from "@/lib/server/http/api-route";
import { parseRequestQuery } from "@/lib/server/http/request-query";
import { AUDIT_LIST_QUERY_SCHEMA, type AuditListQuery } from "@/lib/validation/audit-requests";

/**
 * `GET /api/v1/audit?limit=…&before=…&actor=…&skill=…&action=…&callId=…` (viewer and above) →
 * `{entries: AuditEntry[]}`, newest first: at most `limit` (1–500, default 100), ids below `before`
 * (paging), only the entries of that actor, skill, action (or action prefix `approval.*`) and call
 * (issue 14 point 6). A bad or unknown parameter → 400 `bad_request` naming it (AUDIT_LIST_QUERY_SCHEMA).
 */
export const GET = apiRoute(async (request: Request) => {
  const query = parseRequestQuery<AuditListQuery>(new URL(request.url), AUDIT_LIST_QUERY_SCHEMA, "audit query");
  return Response.json({ entries: await listAudit(query) });
});

import { listAudit } from "@/lib/server/audit/audit-trail";
import { apiRoute, intParam, stringParam } from "@/lib/server/http/api-route";

/**
 * `GET /api/v1/audit?limit=…&before=…&callId=…` (viewer and above) → `{entries: AuditEntry[]}`, newest
 * first: at most `limit` (1–500, default 100), ids below `before` (paging), one call's when `callId`.
 */
export const GET = apiRoute(async (request: Request) => {
  const url = new URL(request.url);
  return Response.json({ entries: await listAudit({ limit: intParam(url, "limit"), before: intParam(url, "before"), callId: stringParam(url, "callId") }) });
});

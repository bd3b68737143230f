import { openAuditExport } from "@/lib/server/audit/export-audit";
import { apiRoute } from "@/lib/server/http/api-route";
import { parseRequestQuery } from "@/lib/server/http/request-query";
import { AUDIT_EXPORT_QUERY_SCHEMA, type AuditExportQuery } from "@/lib/validation/audit-requests";

export const dynamic = "force-dynamic";

/**
 * `GET /api/v1/audit/export?format=csv|jsonl&before=…&actor=…&skill=…&action=…&callId=…` (viewer and
 * above) → the filtered audit trail, newest first, as a streamed download (`Content-Disposition:
 * attachment`): RFC 4180 CSV with a header record, or JSON lines, one AuditEntry each (issue 14 point 6).
 * A missing `format`, a bad or an unknown parameter → 400 `bad_request` naming it, before any byte.
 */
export const GET = apiRoute(async (request: Request) => {
  const { format, ...filters } = parseRequestQuery<AuditExportQuery>(new URL(request.url), AUDIT_EXPORT_QUERY_SCHEMA, "audit export query");
  const download = openAuditExport(filters, format);
  return new Response(download.body, {
    headers: {
      "content-type": download.contentType,
      "content-disposition": `attachment; filename="${download.filename}"`,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    },
  });
});

import { listApprovals } from "@/lib/server/approvals/read-approvals";
import { apiRoute, intParam, stringParam } from "@/lib/server/http/api-route";
import { jsonResponse } from "@/lib/server/http/stored-json";

/**
 * `GET /api/v1/approvals?status=…&limit=…&callId=…` (viewer and above) → `{approvals: Approval[]}`,
 * newest first, every status when `status` is absent, only call `callId`'s when given, at most `limit`
 * (default 100, max 500); 400 for an unknown status.
 */
export const GET = apiRoute(async (request: Request) => {
  const url = new URL(request.url);
  return jsonResponse({ approvals: await listApprovals({ status: stringParam(url, "status"), limit: intParam(url, "limit"), callId: stringParam(url, "callId") }) });
});

import { denyApproval, parseDenyRequest } from "@/lib/server/approvals/deny-approval";
import { apiRoute, readJsonBody } from "@/lib/server/http/api-route";
import { denyPackApproval, isPackApproval } from "@/lib/server/packs/pack-store";
import { checkRequestBody } from "@/lib/server/http/request-body";
import { jsonResponse } from "@/lib/server/http/stored-json";
import { DENY_REQUEST_SCHEMA } from "@/lib/validation/call-requests";

/**
 * `POST /api/v1/approvals/{id}/deny` `{reason}` (approver and above, a person) → 200 `{approval}` with
 * status `denied` (its call `denied`); 400 without a reason (1–500 characters), 403 for a token or a
 * lower role, 409 when not pending (DESIGN.md). A pack's approval answers `{pack, approval}` and needs an admin.
 */
export const POST = apiRoute(
  async (request: Request, context: { params: Promise<{ id: string }> }, identity) => {
    const { id } = await context.params;
    const reason = parseDenyRequest(checkRequestBody(await readJsonBody(request, 16 * 1024), DENY_REQUEST_SCHEMA, { what: "a denial", explain: parseDenyRequest }));
    if (await isPackApproval(id)) return jsonResponse(await denyPackApproval(id, identity, reason));
    return jsonResponse({ approval: await denyApproval(id, identity, reason) });
  },
  { role: "approver", person: "deny approvals" },
);

import { signApproval } from "@/lib/server/approvals/sign-approval";
import { apiRoute } from "@/lib/server/http/api-route";
import { jsonResponse } from "@/lib/server/http/stored-json";

/**
 * `POST /api/v1/approvals/{id}/sign` (approver and above, a person) → 200 `{approval}`; 403 for the
 * requester, a token or a lower role; 409 when already signed by this person or not pending (DESIGN.md).
 */
export const POST = apiRoute(
  async (_request: Request, context: { params: Promise<{ id: string }> }, identity) => {
    const { id } = await context.params;
    return jsonResponse({ approval: await signApproval(id, identity) });
  },
  { role: "approver", person: "sign approvals" },
);

import { signApproval } from "@/lib/server/approvals/sign-approval";
import { apiRoute } from "@/lib/server/http/api-route";
import { isPackApproval, signPackApproval } from "@/lib/server/packs/pack-store";
import { jsonResponse } from "@/lib/server/http/stored-json";

/**
 * `POST /api/v1/approvals/{id}/sign` (approver and above, a person) → 200 `{approval}`; 403 for the
 * requester, a token or a lower role; 409 when already signed by this person or not pending (DESIGN.md).
 * A pack's approval (signPackApproval) answers 200 `{pack, approval}` and needs an admin.
 */
export const POST = apiRoute(
  async (_request: Request, context: { params: Promise<{ id: string }> }, identity) => {
    const { id } = await context.params;
    // A pack's enabling waits for a second admin's signature here too (DESIGN.md "Skill packs").
    if (await isPackApproval(id)) return jsonResponse(await signPackApproval(id, identity));
    return jsonResponse({ approval: await signApproval(id, identity) });
  },
  { role: "approver", person: "sign approvals" },
);

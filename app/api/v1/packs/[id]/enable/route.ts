import { apiRoute } from "@/lib/server/http/api-route";
import { enablePack } from "@/lib/server/packs/pack-store";

/**
 * `POST /api/v1/packs/{id}/enable` (admin, a person; DESIGN.md "Skill packs") → 200 `{pack}` enabled, or
 * 202 `{pack, approvalId}` with status `awaiting_approval` when it adds or changes a dangerous skill (a
 * second admin signs through `POST /api/v1/approvals/{approvalId}/sign`). 404 unknown; 409 when enabled
 * already, waiting for approval, or its stored files changed since staging.
 */
export const POST = apiRoute(
  async (_request: Request, context: { params: Promise<{ id: string }> }, identity) => {
    const { id } = await context.params;
    const outcome = await enablePack(identity, id);
    return outcome.approvalId ? Response.json({ pack: outcome.pack, approvalId: outcome.approvalId }, { status: 202 }) : Response.json({ pack: outcome.pack });
  },
  { role: "admin", person: "enable packs" },
);

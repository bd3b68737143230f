import { apiRoute } from "@/lib/server/http/api-route";
import { rollbackPack } from "@/lib/server/packs/pack-store";

/**
 * `POST /api/v1/packs/{id}/rollback` (admin, a person; DESIGN.md "Skill packs"): `id` is the enabled
 * version; the version enabled before it is enabled again → 200 `{pack}` (that version), or 202
 * `{pack, approvalId}` when it changes a dangerous skill. Pending approvals of every skill whose digest
 * changes are voided. 404 unknown; 409 when `id` is not enabled or has no earlier version.
 */
export const POST = apiRoute(
  async (_request: Request, context: { params: Promise<{ id: string }> }, identity) => {
    const { id } = await context.params;
    const outcome = await rollbackPack(identity, id);
    return outcome.approvalId ? Response.json({ pack: outcome.pack, approvalId: outcome.approvalId }, { status: 202 }) : Response.json({ pack: outcome.pack });
  },
  { role: "admin", person: "roll packs back" },
);

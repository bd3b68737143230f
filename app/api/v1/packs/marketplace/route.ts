import { apiRoute } from "@/lib/server/http/api-route";
import { parseRequestBody } from "@/lib/server/http/request-body";
import { listMarketplace } from "@/lib/server/packs/pack-store";
import { PACK_REQUEST_MAX_BYTES, PACK_STAGE_SCHEMA, type PackStageBody } from "@/lib/validation/pack-requests";

/**
 * `POST /api/v1/packs/marketplace` `{source}` (admin, a person) → 200 `{plugins: [MarketplacePlugin]}`:
 * the plugins a Claude Code marketplace (`.claude-plugin/marketplace.json`) at that folder or git ref
 * offers as packs, each with its skill folders (stage one with `source.plugin`). 400 when the source
 * cannot be read or holds no marketplace.
 */
export const POST = apiRoute(
  async (request) => {
    const { source } = await parseRequestBody<PackStageBody>(request, PACK_STAGE_SCHEMA, "a marketplace's source", PACK_REQUEST_MAX_BYTES);
    return Response.json({ plugins: await listMarketplace(source) });
  },
  { role: "admin", person: "stage packs" },
);

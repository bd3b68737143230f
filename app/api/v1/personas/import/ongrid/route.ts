import { apiRoute } from "@/lib/server/http/api-route";
import { parseRequestBody } from "@/lib/server/http/request-body";
import { importOngridPersonas } from "@/lib/server/ongrid/import-ongrid-personas";
import { ONGRID_PERSONA_IMPORT_MAX_BYTES, ONGRID_PERSONA_IMPORT_SCHEMA, type OngridPersonaImportBody } from "@/lib/validation/ongrid-requests";

/**
 * `POST /api/v1/personas/import/ongrid` `{files: [{name, text}], save}` (admin; DESIGN.md
 * "Integrations"): ongrid persona `.md` files mapped to personas → 200 `{saved, personas: [{file,
 * persona, replaces, notes}], created, replaced}`; `save: false` previews, `save: true` stores them all
 * at once. 400 naming the file (details `{file, field}`) for one that cannot be mapped without
 * widening what it may call; nothing is stored then.
 */
export const POST = apiRoute(
  async (request: Request, _context: unknown, identity) => {
    const body = await parseRequestBody<OngridPersonaImportBody>(request, ONGRID_PERSONA_IMPORT_SCHEMA, "an ongrid persona import", ONGRID_PERSONA_IMPORT_MAX_BYTES);
    return Response.json(await importOngridPersonas(identity, body));
  },
  { role: "admin" },
);

import { AppError } from "@/lib/server/errors";
import { apiRoute, readJsonBody } from "@/lib/server/http/api-route";
import { listPersonas } from "@/lib/server/personas/persona-store";
import { createPersona, explainPersona } from "@/lib/server/personas/save-persona";
import { checkRequestBody } from "@/lib/server/http/request-body";
import { NEW_PERSONA_SCHEMA } from "@/lib/validation/persona-requests";

/** `GET /api/v1/personas` (viewer and above) → `{personas: Persona[]}` by name. */
export const GET = apiRoute(async () => Response.json({ personas: await listPersonas() }));

/**
 * `POST /api/v1/personas` `{name, description?, permission_mode, skills?: {allow?, deny?}, categories?}`
 * (admin) → 201 `{persona}`; 400 for a bad or unknown field (naming it), 409 when the name is taken.
 */
export const POST = apiRoute(
  async (request: Request, _context: unknown, identity) => {
    const body = await readJsonBody(request, 256 * 1024);
    if (body === undefined) throw new AppError("bad_request", 'the body must be a persona {"name", "permission_mode", ...}');
    checkRequestBody(body, NEW_PERSONA_SCHEMA, { what: "a persona", explain: explainPersona });
    return Response.json({ persona: await createPersona(identity, body) }, { status: 201 });
  },
  { role: "admin" },
);

import { AppError } from "@/lib/server/errors";
import { apiRoute, readJsonBody } from "@/lib/server/http/api-route";
import { deletePersona } from "@/lib/server/personas/delete-persona";
import { findPersona } from "@/lib/server/personas/persona-store";
import { explainPersona, replacePersona } from "@/lib/server/personas/save-persona";
import { checkRequestBody } from "@/lib/server/http/request-body";
import { PERSONA_REPLACEMENT_SCHEMA } from "@/lib/validation/persona-requests";

type Context = { params: Promise<{ name: string }> };

/** `GET /api/v1/personas/{name}` (viewer and above) → `{persona}`; 404 for an unknown name. */
export const GET = apiRoute(async (_request: Request, context: Context) => {
  const { name } = await context.params;
  const persona = await findPersona(name);
  if (!persona) throw new AppError("not_found", `no persona named ${JSON.stringify(name)}`);
  return Response.json({ persona });
});

/**
 * `PUT /api/v1/personas/{name}` with a whole persona (admin) → 200 `{persona}`: replaces every field
 * (the body's `name`, if any, must be the path's). 400 bad or unknown field, 404 unknown persona.
 */
export const PUT = apiRoute(
  async (request: Request, context: Context, identity) => {
    const { name } = await context.params;
    const body = await readJsonBody(request, 256 * 1024);
    if (body === undefined) throw new AppError("bad_request", 'the body must be a persona {"permission_mode", "skills", ...}');
    checkRequestBody(body, PERSONA_REPLACEMENT_SCHEMA, { what: "a persona", explain: (raw) => explainPersona(raw, name) });
    return Response.json({ persona: await replacePersona(identity, name, body) });
  },
  { role: "admin" },
);

/**
 * `DELETE /api/v1/personas/{name}` (admin) → 200 `{persona}` (the deleted one); 404 unknown, 409 for
 * the default persona or one that unrevoked API tokens use (the message names the tokens).
 */
export const DELETE = apiRoute(
  async (_request: Request, context: Context, identity) => {
    const { name } = await context.params;
    return Response.json({ persona: await deletePersona(identity, name) });
  },
  { role: "admin" },
);

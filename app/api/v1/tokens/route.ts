import { createApiToken, listApiTokens } from "@/lib/server/auth/api-tokens";
import { apiRoute, readJsonBody } from "@/lib/server/http/api-route";
import { checkRequestBody } from "@/lib/server/http/request-body";
import { NEW_API_TOKEN_SCHEMA } from "@/lib/validation/auth-requests";

/** `GET /api/v1/tokens` (operator) → `{tokens: ApiTokenInfo[]}`: the caller's own, or all for an admin. */
export const GET = apiRoute(async (_request: Request, _context: unknown, identity) => Response.json({ tokens: await listApiTokens(identity) }), { role: "operator" });

/**
 * `POST /api/v1/tokens` `{persona, name}` (operator, signed in) → 201 `{token, info}`: the token is
 * shown only in this answer. 400 bad field, 404 unknown persona, 403 when sent with a token.
 */
export const POST = apiRoute(
  async (request: Request, _context: unknown, identity) => {
    const raw = await readJsonBody(request, 16 * 1024);
    const body = checkRequestBody<object>(raw ?? null, NEW_API_TOKEN_SCHEMA, { what: "a token request", shape: 'the body must be {"persona": "...", "name": "..."}' });
    const { token, info } = await createApiToken(identity, body as { persona: unknown; name: unknown });
    return Response.json({ token, info }, { status: 201 });
  },
  { role: "operator" },
);

import { createApiToken, listApiTokens } from "@/lib/server/auth/api-tokens";
import { AppError } from "@/lib/server/errors";
import { apiRoute, readJsonBody } from "@/lib/server/http/api-route";
import { refuseUnknownFields } from "@/lib/server/http/known-fields";

/** `GET /api/v1/tokens` (operator) → `{tokens: ApiTokenInfo[]}`: the caller's own, or all for an admin. */
export const GET = apiRoute(async (_request: Request, _context: unknown, identity) => Response.json({ tokens: await listApiTokens(identity) }), { role: "operator" });

/**
 * `POST /api/v1/tokens` `{persona, name}` (operator, signed in) → 201 `{token, info}`: the token is
 * shown only in this answer. 400 bad field, 404 unknown persona, 403 when sent with a token.
 */
export const POST = apiRoute(
  async (request: Request, _context: unknown, identity) => {
    const body = await readJsonBody(request, 16 * 1024);
    if (body === null || typeof body !== "object" || Array.isArray(body)) throw new AppError("bad_request", 'the body must be {"persona": "...", "name": "..."}');
    refuseUnknownFields(body, ["persona", "name"], "a token request");
    const { token, info } = await createApiToken(identity, body as { persona: unknown; name: unknown });
    return Response.json({ token, info }, { status: 201 });
  },
  { role: "operator" },
);

import { apiRoute } from "@/lib/server/http/api-route";
import { parseRequestBody } from "@/lib/server/http/request-body";
import { createSecret, listSecrets, readSecretBody, type NewSecret } from "@/lib/server/secrets/secret-store";
import { NEW_SECRET_SCHEMA, SECRET_BODY_MAX_BYTES } from "@/lib/validation/secret-requests";

/** `GET /api/v1/secrets` (admin) → 200 `{secrets: [Secret]}` by name: names, skills, fingerprints, who and when; never a value (DESIGN.md "Skill secrets"). */
export const GET = apiRoute(async () => Response.json({ secrets: await listSecrets() }), { role: "admin" });

/**
 * `POST /api/v1/secrets` `{name, value, skills}` (admin, a person) → 201 `{secret}`: the value sealed at
 * rest and never served again; pending approvals of `skills` are voided. 400 for a bad name, value or
 * skill (the message never quotes the value), 409 when a secret of that name exists.
 */
export const POST = apiRoute(
  async (request, _context, identity) => {
    const body = await readSecretBody(() => parseRequestBody<NewSecret>(request, NEW_SECRET_SCHEMA, "a secret", SECRET_BODY_MAX_BYTES));
    return Response.json({ secret: await createSecret(identity, body) }, { status: 201 });
  },
  { role: "admin", person: "set secrets" },
);

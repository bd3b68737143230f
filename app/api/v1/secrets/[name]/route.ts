import { apiRoute } from "@/lib/server/http/api-route";
import { parseRequestBody } from "@/lib/server/http/request-body";
import { deleteSecret, readSecretBody, updateSecret, type SecretChange } from "@/lib/server/secrets/secret-store";
import { SECRET_BODY_MAX_BYTES, SECRET_CHANGE_SCHEMA } from "@/lib/validation/secret-requests";

type Params = { params: Promise<{ name: string }> };

/**
 * `PUT /api/v1/secrets/{name}` `{value?, skills?}` (admin, a person) → 200 `{secret}`: a new value, new
 * skills, or both (DESIGN.md "Skill secrets"); pending approvals of the skills it changes for are
 * voided. 400 for a bad value or skill, 404 when there is no such secret.
 */
export const PUT = apiRoute(
  async (request, context: Params, identity) => {
    const { name } = await context.params;
    const body = await readSecretBody(() => parseRequestBody<SecretChange>(request, SECRET_CHANGE_SCHEMA, "a secret change", SECRET_BODY_MAX_BYTES));
    return Response.json({ secret: await updateSecret(identity, name, body) });
  },
  { role: "admin", person: "change secrets" },
);

/** `DELETE /api/v1/secrets/{name}` (admin, a person) → 200 `{secret}` as it was; its skills' pending approvals are voided. 404 when unknown. */
export const DELETE = apiRoute(
  async (_request, context: Params, identity) => {
    const { name } = await context.params;
    return Response.json({ secret: await deleteSecret(identity, name) });
  },
  { role: "admin", person: "delete secrets" },
);

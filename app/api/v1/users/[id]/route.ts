import { setUserRole } from "@/lib/server/auth/users";
import { apiRoute, readJsonBody } from "@/lib/server/http/api-route";
import { checkRequestBody } from "@/lib/server/http/request-body";
import { USER_CHANGE_SCHEMA } from "@/lib/validation/auth-requests";

/** `PATCH /api/v1/users/{id}` `{role}` (admin) → 200 `{user}`; 404, 400, 409 when it would demote the last admin. */
export const PATCH = apiRoute(
  async (request: Request, context: { params: Promise<{ id: string }> }, identity) => {
    const { id } = await context.params;
    const raw = await readJsonBody(request, 16 * 1024);
    const body = checkRequestBody<object>(raw ?? null, USER_CHANGE_SCHEMA, { what: "a user change", shape: 'the body must be {"role": "..."}' });
    return Response.json({ user: await setUserRole(id, (body as { role?: unknown }).role, identity) });
  },
  { role: "admin" },
);

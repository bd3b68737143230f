import { setUserRole } from "@/lib/server/auth/users";
import { AppError } from "@/lib/server/errors";
import { apiRoute, readJsonBody } from "@/lib/server/http/api-route";
import { refuseUnknownFields } from "@/lib/server/http/known-fields";

/** `PATCH /api/v1/users/{id}` `{role}` (admin) → 200 `{user}`; 404, 400, 409 when it would demote the last admin. */
export const PATCH = apiRoute(
  async (request: Request, context: { params: Promise<{ id: string }> }, identity) => {
    const { id } = await context.params;
    const body = await readJsonBody(request, 16 * 1024);
    if (body === null || typeof body !== "object" || Array.isArray(body)) throw new AppError("bad_request", 'the body must be {"role": "..."}');
    refuseUnknownFields(body, ["role"], "a user change");
    return Response.json({ user: await setUserRole(id, (body as { role?: unknown }).role, identity) });
  },
  { role: "admin" },
);

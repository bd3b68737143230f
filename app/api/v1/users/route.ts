import { createUser, listUsers } from "@/lib/server/auth/users";
import { apiRoute, readJsonBody } from "@/lib/server/http/api-route";
import { checkRequestBody } from "@/lib/server/http/request-body";
import { NEW_USER_SCHEMA } from "@/lib/validation/auth-requests";

/** `GET /api/v1/users` (admin) → `{users: ConsoleUser[]}`, oldest first. */
export const GET = apiRoute(async () => Response.json({ users: await listUsers() }), { role: "admin" });

/**
 * `POST /api/v1/users` `{email, password, role, name?}` (admin) → 201 `{user}`; 400 for a bad field
 * (password under 12 characters, unknown role, email without a dotted domain), 409 for a taken email.
 */
export const POST = apiRoute(
  async (request: Request, _context: unknown, identity) => {
    const raw = await readJsonBody(request, 16 * 1024);
    const body = checkRequestBody<object>(raw ?? null, NEW_USER_SCHEMA, { what: "a user", shape: 'the body must be {"email", "password", "role"}' });
    const user = await createUser(body as Record<string, unknown> as { email: unknown; password: unknown; role: unknown }, identity);
    return Response.json({ user }, { status: 201 });
  },
  { role: "admin" },
);

import { createUser, listUsers } from "@/lib/server/auth/users";
import { AppError } from "@/lib/server/errors";
import { apiRoute, readJsonBody } from "@/lib/server/http/api-route";
import { refuseUnknownFields } from "@/lib/server/http/known-fields";

/** `GET /api/v1/users` (admin) → `{users: ConsoleUser[]}`, oldest first. */
export const GET = apiRoute(async () => Response.json({ users: await listUsers() }), { role: "admin" });

/**
 * `POST /api/v1/users` `{email, password, role, name?}` (admin) → 201 `{user}`; 400 for a bad field
 * (password under 12 characters, unknown role, email without a dotted domain), 409 for a taken email.
 */
export const POST = apiRoute(
  async (request: Request, _context: unknown, identity) => {
    const body = await readJsonBody(request, 16 * 1024);
    if (body === null || typeof body !== "object" || Array.isArray(body)) throw new AppError("bad_request", 'the body must be {"email", "password", "role"}');
    refuseUnknownFields(body, ["email", "password", "role", "name"], "a user");
    const user = await createUser(body as Record<string, unknown> as { email: unknown; password: unknown; role: unknown }, identity);
    return Response.json({ user }, { status: 201 });
  },
  { role: "admin" },
);

import { apiRoute } from "@/lib/server/http/api-route";

/** `GET /api/v1/auth/session` → `{identity}`: who the request is from (person or token), with role and persona. */
export const GET = apiRoute(async (_request: Request, _context: unknown, identity) => Response.json({ identity }));

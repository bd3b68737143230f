import { apiRoute } from "@/lib/server/http/api-route";
import { jsonResponse } from "@/lib/server/http/stored-json";

/** `GET /api/v1/auth/session` → `{identity}`: who the request is from (person or token), with role and persona. */
export const GET = apiRoute(async (_request: Request, _context: unknown, identity) => jsonResponse({ identity }));

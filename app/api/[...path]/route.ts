import { AppError } from "@/lib/server/errors";
import { apiRoute } from "@/lib/server/http/api-route";

/**
 * Any `/api/…` path no route serves answers the JSON error envelope with 404 `not_found`, not an HTML
 * page — to a caller who is signed in; others get 401 like every other API path (DESIGN.md).
 */
const notFound = apiRoute(async (request: Request): Promise<Response> => {
  const { pathname } = new URL(request.url);
  throw new AppError("not_found", `no API endpoint ${request.method} ${pathname}`);
});

export const GET = notFound;
export const POST = notFound;
export const PUT = notFound;
export const PATCH = notFound;
export const DELETE = notFound;

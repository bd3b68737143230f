import { errorResponse, AppError } from "@/lib/server/errors";

/** Any `/api/…` path no route serves answers the JSON error envelope with 404 `not_found`, not an HTML page. */
async function notFound(request: Request): Promise<Response> {
  const { pathname } = new URL(request.url);
  return errorResponse(new AppError("not_found", `no API endpoint ${request.method} ${pathname}`));
}

export const GET = notFound;
export const POST = notFound;
export const PUT = notFound;
export const PATCH = notFound;
export const DELETE = notFound;

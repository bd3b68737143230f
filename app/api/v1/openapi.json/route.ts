import { apiRoute } from "@/lib/server/http/api-route";
import { openApiDocument } from "@/lib/server/openapi/openapi-document";

/**
 * `GET /api/v1/openapi.json` (viewer and above, like every /api/v1 route: 401 without a session or
 * token) → 200 the OpenAPI 3.1 document of every route, generated from the request schemas the routes
 * check their bodies with (DESIGN.md "Integrations").
 */
export const GET = apiRoute(async () => Response.json(openApiDocument()));

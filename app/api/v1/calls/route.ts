import { listCalls } from "@/lib/server/calls/read-calls";
import { apiRoute, intParam, stringParam } from "@/lib/server/http/api-route";
import { jsonResponse } from "@/lib/server/http/stored-json";

/** `GET /api/v1/calls?skill=&status=&limit=` → `{calls: Call[]}` newest first (limit default 50, max 500). */
export const GET = apiRoute(async (request: Request) => {
  const url = new URL(request.url);
  const calls = await listCalls({ skill: stringParam(url, "skill"), status: stringParam(url, "status"), limit: intParam(url, "limit") });
  return jsonResponse({ calls });
});

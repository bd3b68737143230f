import { apiRoute } from "@/lib/server/http/api-route";
import { getRegistry } from "@/lib/server/skills/registry";
import { jsonResponse } from "@/lib/server/http/stored-json";

/** `GET /api/v1/loader` → `{report: LoaderReport}`: the last scan's registered, skipped and failed manifests and log lines. */
export const GET = apiRoute(async () => jsonResponse({ report: (await getRegistry()).report() }));

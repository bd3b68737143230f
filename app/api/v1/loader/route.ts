import { apiRoute } from "@/lib/server/http/api-route";
import { getRegistry } from "@/lib/server/skills/registry";

/** `GET /api/v1/loader` → `{report: LoaderReport}`: the last scan's registered, skipped and failed manifests and log lines. */
export const GET = apiRoute(async () => Response.json({ report: (await getRegistry()).report() }));

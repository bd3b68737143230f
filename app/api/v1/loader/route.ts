import { apiRoute } from "@/lib/server/http/api-route";
import { getRegistry, loaderHistory } from "@/lib/server/skills/registry";
import { watchStatus } from "@/lib/server/skills/watch-skills";

/**
 * `GET /api/v1/loader` → `{report: LoaderReport, history: LoaderScan[], watch: LoaderWatch}`: the last
 * scan's registered, skipped and failed skill files and log lines; the last scans (newest first: when,
 * why — start, Rescan, another replica, the root watcher — how long, and which skills each added,
 * removed or changed); and whether the roots are watched (issue 13 point 4).
 */
export const GET = apiRoute(async () => Response.json({ report: (await getRegistry()).report(), history: loaderHistory(), watch: watchStatus() }));

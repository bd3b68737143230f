import { apiRoute } from "@/lib/server/http/api-route";
import { reloadRegistry } from "@/lib/server/skills/registry";

/** `POST /api/v1/loader/reload` → `{report: LoaderReport}` of a fresh scan of every allow-list root. */
export const POST = apiRoute(async () => Response.json({ report: await reloadRegistry() }), { role: "operator" });

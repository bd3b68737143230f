import { apiRoute } from "@/lib/server/http/api-route";
import { reloadSkills } from "@/lib/server/skills/reload-skills";

/**
 * `POST /api/v1/loader/reload` (operator and above) → `{report: LoaderReport}` of a fresh scan of every
 * allow-list root; queued calls whose skill changed or vanished end `failed`, every live worker is
 * asked to rescan its own roots and report its digests again, and the other replicas reload too
 * (reloadSkills).
 */
export const POST = apiRoute(
  async () => {
    const report = await reloadSkills();
    return Response.json({ report });
  },
  { role: "operator" },
);

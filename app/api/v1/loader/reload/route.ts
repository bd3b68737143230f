import { apiRoute } from "@/lib/server/http/api-route";
import { failStaleQueuedCalls } from "@/lib/server/requests/fail-stale-queued-calls";
import { reloadRegistry } from "@/lib/server/skills/registry";
import { requestWorkerRescans } from "@/lib/server/workers/claim-calls";

/**
 * `POST /api/v1/loader/reload` (operator and above) → `{report: LoaderReport}` of a fresh scan of every
 * allow-list root; queued calls whose skill changed or vanished end `failed` (failStaleQueuedCalls);
 * every live worker is asked to rescan its own roots and report its digests again.
 */
export const POST = apiRoute(
  async () => {
    const report = await reloadRegistry();
    await failStaleQueuedCalls();
    await requestWorkerRescans();
    return Response.json({ report });
  },
  { role: "operator" },
);

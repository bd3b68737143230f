import { apiRoute } from "@/lib/server/http/api-route";
import { listWorkers } from "@/lib/server/workers/list-workers";

/**
 * `GET /api/v1/workers` (operator and above) → 200 `{workers: [Worker]}`: name, labels, host, version,
 * sandbox and limits in force, last heartbeat, running calls, skills with digests and drift (DESIGN.md
 * "Workers and the sandbox").
 */
export const GET = apiRoute(async () => Response.json({ workers: await listWorkers() }), { role: "operator" });

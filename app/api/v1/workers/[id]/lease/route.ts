import { renewWorkerLeases } from "@/lib/server/calls/call-leases";
import { parseRequestBody } from "@/lib/server/http/request-body";
import { workerRoute } from "@/lib/server/http/worker-route";
import { requireWorkerSession } from "@/lib/server/workers/worker-auth";
import type { LeaseRequest } from "@/lib/types/worker";
import { LEASE_REQUEST_SCHEMA } from "@/lib/validation/worker-requests";

/**
 * `POST /api/v1/workers/{id}/lease` `{running: [callId]}` (the worker's own token) → 200 `{cancel,
 * lost}`: renews the leases of the calls it runs; `lost` names those it no longer owns (stop them).
 */
export const POST = workerRoute(async (request, context: { params: Promise<{ id: string }> }, caller) => {
  const { id } = await context.params;
  await requireWorkerSession(caller, id, "renew leases");
  const body = await parseRequestBody<LeaseRequest>(request, LEASE_REQUEST_SCHEMA, "a lease renewal", 256 * 1024);
  return Response.json(await renewWorkerLeases(id, body.running));
});

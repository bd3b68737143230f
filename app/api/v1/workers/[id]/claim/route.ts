import { parseRequestBody } from "@/lib/server/http/request-body";
import { workerRoute } from "@/lib/server/http/worker-route";
import { claimCalls } from "@/lib/server/workers/claim-calls";
import { requireWorkerSession } from "@/lib/server/workers/worker-auth";
import type { ClaimRequest } from "@/lib/types/worker";
import { CLAIM_REQUEST_SCHEMA } from "@/lib/validation/worker-requests";
import { jsonResponse } from "@/lib/server/http/stored-json";

/**
 * `POST /api/v1/workers/{id}/claim` `{capacity}` (the worker's own token) → 200 ClaimResponse `{calls,
 * cancel, rescan}`: a long poll answered as soon as calls are claimed for this worker (each `queued` →
 * `running` by compare-and-set), one of its calls must be cancelled, or it must rescan; empty after
 * the poll time. 403 for another token's session.
 */
export const POST = workerRoute(async (request, context: { params: Promise<{ id: string }> }, caller) => {
  const { id } = await context.params;
  const worker = await requireWorkerSession(caller, id, "claim calls");
  const body = await parseRequestBody<ClaimRequest>(request, CLAIM_REQUEST_SCHEMA, "a claim", 4096);
  return jsonResponse(await claimCalls(worker, body.capacity, request.signal));
});

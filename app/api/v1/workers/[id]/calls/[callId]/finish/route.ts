import { parseRequestBody } from "@/lib/server/http/request-body";
import { workerRoute } from "@/lib/server/http/worker-route";
import { requireWorkerSession } from "@/lib/server/workers/worker-auth";
import { finishWorkerCall, refuseReportOfOthers } from "@/lib/server/workers/worker-reports";
import type { FinishReport } from "@/lib/types/worker";
import { FINISH_REPORT_SCHEMA } from "@/lib/validation/worker-requests";
import { jsonResponse } from "@/lib/server/http/stored-json";

/**
 * `POST /api/v1/workers/{id}/calls/{callId}/finish` FinishReport (the worker's own token) → 200
 * `{call}` at its end state; 403 (audited) for a call this worker did not claim, 409 when it already
 * ended (interrupted after a lapsed lease, cancelled), 404 for an unknown call.
 */
export const POST = workerRoute(async (request, context: { params: Promise<{ id: string; callId: string }> }, caller) => {
  const { id, callId } = await context.params;
  const worker = await requireWorkerSession(caller, id, "finish a call");
  await refuseReportOfOthers(caller, worker, callId, "finish a call");
  const report = await parseRequestBody<FinishReport>(request, FINISH_REPORT_SCHEMA, "a finish report", 32 * 1024 * 1024);
  return jsonResponse({ call: await finishWorkerCall(caller, worker, callId, report) });
});

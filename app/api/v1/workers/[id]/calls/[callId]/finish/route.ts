import { config } from "@/lib/server/env";
import { oversizedFieldsOf } from "@/lib/server/http/api-route";
import { parseListedBody } from "@/lib/server/http/request-body";
import { workerRoute } from "@/lib/server/http/worker-route";
import { requireWorkerSession } from "@/lib/server/workers/worker-auth";
import { finishWorkerCall, refuseReportOfOthers } from "@/lib/server/workers/worker-reports";
import type { FinishReport } from "@/lib/types/worker";
import { EVENT_SLICE_SCHEMA, EVENTS_REPORT_MAX_BYTES, EVENTS_REPORT_MAX_NODES, FINISH_REPORT_SCHEMA, MAX_EVENTS_PER_REPORT } from "@/lib/validation/worker-requests";

const EVENTS_LIST = { key: "events", schema: EVENT_SLICE_SCHEMA, maxItems: MAX_EVENTS_PER_REPORT };
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
  // Its last lines parsed and checked a slice at a time, like an events report (issue 10 point 1).
  // Its result (megabytes beside the lines) parsed off the main thread, and one past the console's
  // stdout limit never brought back to it: the call then fails, saying so.
  const report = await parseListedBody<FinishReport>(request, FINISH_REPORT_SCHEMA, EVENTS_LIST, "a finish report", 2 * EVENTS_REPORT_MAX_BYTES, EVENTS_REPORT_MAX_NODES, {
    maxBytes: 2 * EVENTS_REPORT_MAX_BYTES,
    cappedStrings: { result: config().stdoutLimitBytes },
  });
  return jsonResponse({ call: await finishWorkerCall(caller, worker, callId, report, oversizedFieldsOf(report).result) });
});

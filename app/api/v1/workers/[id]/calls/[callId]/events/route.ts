import { parseListedBody } from "@/lib/server/http/request-body";
import { workerRoute } from "@/lib/server/http/worker-route";
import { requireWorkerSession } from "@/lib/server/workers/worker-auth";
import { recordWorkerEvents, refuseReportOfOthers } from "@/lib/server/workers/worker-reports";
import type { EventsReport } from "@/lib/types/worker";
import { EVENT_SLICE_SCHEMA, EVENTS_REPORT_MAX_BYTES, EVENTS_REPORT_MAX_NODES, EVENTS_REPORT_SCHEMA, MAX_EVENTS_PER_REPORT } from "@/lib/validation/worker-requests";

const EVENTS_LIST = { key: "events", schema: EVENT_SLICE_SCHEMA, maxItems: MAX_EVENTS_PER_REPORT };

/**
 * `POST /api/v1/workers/{id}/calls/{callId}/events` EventsReport (the worker's own token) → 204: the
 * lines are stored and streamed live; 403 (audited) for a call this worker did not claim, 409 for its
 * call that already ended (stop it) or a seq already stored, 404 for an unknown call.
 */
export const POST = workerRoute(async (request, context: { params: Promise<{ id: string; callId: string }> }, caller) => {
  const { id, callId } = await context.params;
  const worker = await requireWorkerSession(caller, id, "report timeline lines");
  await refuseReportOfOthers(caller, worker, callId, "report timeline lines");
  // Up to 5,000 lines of 70,000 characters: parsed and checked a slice at a time (issue 10 point 1).
  const report = await parseListedBody<EventsReport>(request, EVENTS_REPORT_SCHEMA, EVENTS_LIST, "a timeline report", EVENTS_REPORT_MAX_BYTES, EVENTS_REPORT_MAX_NODES);
  await recordWorkerEvents(caller, worker, callId, report);
  return new Response(null, { status: 204 });
});

import { parseListedBody } from "@/lib/server/http/request-body";
import { workerRoute } from "@/lib/server/http/worker-route";
import { refuseSessionFlood, registerWorker } from "@/lib/server/workers/register-worker";
import type { WorkerRegistration } from "@/lib/types/worker";
import { MAX_REPORTED_SKILLS, SKILL_REPORT_SLICE_SCHEMA, SKILLS_REPORT_MAX_BYTES, SKILLS_REPORT_MAX_NODES, WORKER_REGISTRATION_SCHEMA } from "@/lib/validation/worker-requests";

/**
 * `POST /api/v1/workers/register` (worker token only) body WorkerRegistration → 201 `{worker:
 * WorkerSession}`: a new worker session with its lease and poll timings; 400 for a body the schema
 * refuses; 401 for anything but a live worker token; 409 while the token holds LIVE_SESSIONS_PER_TOKEN
 * live sessions (checked before the body is read).
 */
export const POST = workerRoute(async (request, _context, caller) => {
  await refuseSessionFlood(caller);
  const registration = await parseListedBody<WorkerRegistration>(request, WORKER_REGISTRATION_SCHEMA, { key: "skills", schema: SKILL_REPORT_SLICE_SCHEMA, maxItems: MAX_REPORTED_SKILLS }, "a worker registration", SKILLS_REPORT_MAX_BYTES, SKILLS_REPORT_MAX_NODES);
  return Response.json({ worker: await registerWorker(caller, registration) }, { status: 201 });
});

import { DEFAULT_BODY_LIMIT_BYTES, parseRequestBody } from "@/lib/server/http/request-body";
import { workerRoute } from "@/lib/server/http/worker-route";
import { registerWorker } from "@/lib/server/workers/register-worker";
import type { WorkerRegistration } from "@/lib/types/worker";
import { SKILLS_REPORT_MAX_NODES, WORKER_REGISTRATION_SCHEMA } from "@/lib/validation/worker-requests";

/**
 * `POST /api/v1/workers/register` (worker token only) body WorkerRegistration → 201 `{worker:
 * WorkerSession}`: a new worker session with its lease and poll timings; 400 for a body the schema
 * refuses; 401 for anything but a live worker token.
 */
export const POST = workerRoute(async (request, _context, caller) => {
  const registration = await parseRequestBody<WorkerRegistration>(request, WORKER_REGISTRATION_SCHEMA, "a worker registration", DEFAULT_BODY_LIMIT_BYTES, SKILLS_REPORT_MAX_NODES);
  return Response.json({ worker: await registerWorker(caller, registration) }, { status: 201 });
});

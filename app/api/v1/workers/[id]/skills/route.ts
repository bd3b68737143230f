import { DEFAULT_BODY_LIMIT_BYTES, parseRequestBody } from "@/lib/server/http/request-body";
import { workerRoute } from "@/lib/server/http/worker-route";
import { reportWorkerSkills } from "@/lib/server/workers/register-worker";
import { requireWorkerSession } from "@/lib/server/workers/worker-auth";
import type { WorkerSkillReport } from "@/lib/types/worker";
import { SKILLS_REPORT_MAX_NODES, WORKER_SKILLS_SCHEMA } from "@/lib/validation/worker-requests";

/** `POST /api/v1/workers/{id}/skills` `{skills: [WorkerSkillReport]}` (the worker's own token) → 200 `{skills: n}`: replaces what it holds. */
export const POST = workerRoute(async (request, context: { params: Promise<{ id: string }> }, caller) => {
  const { id } = await context.params;
  await requireWorkerSession(caller, id, "report its skills");
  const body = await parseRequestBody<{ skills: WorkerSkillReport[] }>(request, WORKER_SKILLS_SCHEMA, "a skills report", DEFAULT_BODY_LIMIT_BYTES, SKILLS_REPORT_MAX_NODES);
  return Response.json({ skills: await reportWorkerSkills(id, body.skills) });
});

import { parseListedBody } from "@/lib/server/http/request-body";
import { workerRoute } from "@/lib/server/http/worker-route";
import { reportWorkerSkills } from "@/lib/server/workers/register-worker";
import { requireWorkerSession } from "@/lib/server/workers/worker-auth";
import type { WorkerSkillReport } from "@/lib/types/worker";
import { MAX_REPORTED_SKILLS, SKILL_REPORT_SLICE_SCHEMA, SKILLS_REPORT_MAX_BYTES, SKILLS_REPORT_MAX_NODES, WORKER_SKILLS_SCHEMA } from "@/lib/validation/worker-requests";

/** `POST /api/v1/workers/{id}/skills` `{skills: [WorkerSkillReport]}` (the worker's own token) → 200 `{skills: n}`: replaces what it holds. */
export const POST = workerRoute(async (request, context: { params: Promise<{ id: string }> }, caller) => {
  const { id } = await context.params;
  await requireWorkerSession(caller, id, "report its skills");
  const body = await parseListedBody<{ skills: WorkerSkillReport[] }>(request, WORKER_SKILLS_SCHEMA, { key: "skills", schema: SKILL_REPORT_SLICE_SCHEMA, maxItems: MAX_REPORTED_SKILLS }, "a skills report", SKILLS_REPORT_MAX_BYTES, SKILLS_REPORT_MAX_NODES);
  return Response.json({ skills: await reportWorkerSkills(id, body.skills) });
});

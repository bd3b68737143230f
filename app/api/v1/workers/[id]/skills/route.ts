import { apiRoute, intParam, stringParam } from "@/lib/server/http/api-route";
import { parseListedBody } from "@/lib/server/http/request-body";
import { workerRoute } from "@/lib/server/http/worker-route";
import { WORKER_SKILL_PAGE_DEFAULT, workerSkillPage } from "@/lib/server/workers/list-workers";
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

/**
 * `GET /api/v1/workers/{id}/skills?after=&limit=&q=` (operator and above) → 200 WorkerSkillPage: the
 * skills a worker holds by name, at most `limit` (default 200, at most 500) after the name `after`,
 * only those whose name contains `q`,
 * each with its digest and whether it drifted; `next` is the `after` of the next page, null at the end.
 * 404 `not_found` for an unknown worker, 400 `bad_request` for a limit out of range. `GET /api/v1/workers`
 * carries only each worker's first skills (issue 10 point 1); the Workers page's "Show all" pages here.
 */
export const GET = apiRoute(
  async (request, context: { params: Promise<{ id: string }> }) => {
    const { id } = await context.params;
    const url = new URL(request.url);
    return Response.json(await workerSkillPage(id, stringParam(url, "after") ?? "", intParam(url, "limit") ?? WORKER_SKILL_PAGE_DEFAULT, stringParam(url, "q") ?? ""));
  },
  { role: "operator" },
);

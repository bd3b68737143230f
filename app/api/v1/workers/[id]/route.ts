import { workerRoute } from "@/lib/server/http/worker-route";
import { stopWorkerSession } from "@/lib/server/workers/register-worker";
import { requireWorkerSession } from "@/lib/server/workers/worker-auth";

/** `DELETE /api/v1/workers/{id}` (the worker's own token) → 204: the worker session ends (a stopping worker says goodbye). */
export const DELETE = workerRoute(async (_request, context: { params: Promise<{ id: string }> }, caller) => {
  const { id } = await context.params;
  await requireWorkerSession(caller, id, "end its session");
  await stopWorkerSession(id);
  return new Response(null, { status: 204 });
});

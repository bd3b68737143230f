import { apiRoute } from "@/lib/server/http/api-route";
import { revokeWorkerToken } from "@/lib/server/workers/worker-tokens";

/**
 * `DELETE /api/v1/worker-tokens/{id}` (admin, a person) → 200 `{workerToken}` revoked: its workers are
 * cut off and their running calls end `interrupted` (DESIGN.md "Worker tokens"); 404 when unknown.
 */
export const DELETE = apiRoute(
  async (_request, context: { params: Promise<{ id: string }> }, identity) => {
    const { id } = await context.params;
    return Response.json({ workerToken: await revokeWorkerToken(identity, id) });
  },
  { role: "admin", person: "revoke worker tokens" },
);

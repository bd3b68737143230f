import { apiRoute } from "@/lib/server/http/api-route";
import { parseRequestBody } from "@/lib/server/http/request-body";
import { createWorkerToken, listWorkerTokens, type NewWorkerToken } from "@/lib/server/workers/worker-tokens";
import { NEW_WORKER_TOKEN_SCHEMA } from "@/lib/validation/worker-requests";

/** `GET /api/v1/worker-tokens` (admin) → 200 `{workerTokens: [WorkerToken]}`, newest first, never the tokens themselves. */
export const GET = apiRoute(async () => Response.json({ workerTokens: await listWorkerTokens() }), { role: "admin" });

/**
 * `POST /api/v1/worker-tokens` `{name, labels?}` (admin, a person) → 201 `{token, workerToken}`: the
 * token is shown once (DESIGN.md "Worker tokens"); 400 for a bad name or label.
 */
export const POST = apiRoute(
  async (request, _context, identity) => {
    const body = await parseRequestBody<{ name: string; labels?: string[] }>(request, NEW_WORKER_TOKEN_SCHEMA, "a worker token", 64 * 1024);
    const input: NewWorkerToken = { name: body.name.trim(), labels: body.labels ?? [] };
    const { token, info } = await createWorkerToken(identity, input);
    return Response.json({ token, workerToken: info }, { status: 201 });
  },
  { role: "admin", person: "create worker tokens" },
);

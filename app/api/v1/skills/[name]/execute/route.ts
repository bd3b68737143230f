import { config } from "@/lib/server/env";
import { apiRoute, readJsonBody } from "@/lib/server/http/api-route";
import { checkRequestBody } from "@/lib/server/http/request-body";
import { executeOngridSkill } from "@/lib/server/ongrid/execute-skill";
import { ongridErrorResponse } from "@/lib/server/ongrid/ongrid-error";
import { ONGRID_EXECUTE_SCHEMA, type OngridExecuteBody } from "@/lib/validation/ongrid-requests";

/** The params are read as text and parsed off the main thread, like a call's args (issue 10 point 1). */
const PARAMS_PATH = ["params"];

/**
 * `POST /api/v1/skills/{key}/execute` `{params, edge_id?}` (operator and above; DESIGN.md
 * "Integrations", the ongrid drop-in): runs a call through the same path and policy as `POST
 * /api/v1/skills/{name}/calls` with `wait: true`, `edge_id` as its target, and answers ongrid's shapes:
 * 200 `{result}`, 200 `{error}` when the skill failed, 403 `{error, code: "forbidden", call_id, status}`
 * when it waits for a confirmation or approval; every refusal as ongrid's `{error, code}` with our
 * status (400 `invalid`, 401 `unauthorized`, 403 `forbidden`, 404 `not-found`, 409/413/503 `internal`).
 */
export const POST = apiRoute(
  async (request: Request, context: { params: Promise<{ name: string }> }, identity) => {
    const { name } = await context.params;
    const raw = await readJsonBody(request, config().argsLimitBytes, config().argsMaxNodes, { keepText: PARAMS_PATH });
    const body = checkRequestBody<OngridExecuteBody>(raw ?? {}, ONGRID_EXECUTE_SCHEMA, { what: "an execute request", shape: 'the body must be {"params": {...}, "edge_id": ...}' });
    return executeOngridSkill({ key: name, body, identity, signal: request.signal });
  },
  { role: "operator", answerError: ongridErrorResponse },
);

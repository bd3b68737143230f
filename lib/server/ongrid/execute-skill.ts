/*
 * ongrid drop-in (DESIGN.md "Integrations"): `POST /api/v1/skills/{key}/execute` `{params, edge_id?}`
 * run as one of our calls. Shapes read from github.com/ongridio/ongrid at commit
 * 2e688933ac33ba95b46c1ebca348c4d282234446, internal/manager/server/skill/http.go (executeReq,
 * execute, writeErr, errCode) and internal/manager/biz/skill/service.go (ExecuteOutput: the skill's own
 * failure is `200 {error}`, not an HTTP error).
 */
import type { Call } from "@/lib/types/call";
import type { Identity } from "@/lib/types/identity";
import type { OngridErrorBody, OngridExecuteOutput } from "@/lib/types/ongrid";
import { JsonText } from "@/lib/validation/json-text";
import type { OngridExecuteBody } from "@/lib/validation/ongrid-requests";
import { AppError } from "../errors";
import { defineStoredJson, jsonResponse, storedTextOf } from "../http/stored-json";
import { requestCall } from "../requests/request-call";
import { liveWorkerServes } from "../workers/live-target";

/**
 * The call target an `edge_id` names (DESIGN.md "Workers": a worker name or label): a positive number
 * is that number's digits (ongrid's edges are numbered; a worker may carry the label `7`), a string is
 * itself; absent, null and 0 (Go's zero value: no edge) mean any eligible worker. Pure.
 */
export function targetOfEdge(edgeId: OngridExecuteBody["edge_id"]): string | null {
  if (edgeId === undefined || edgeId === null || edgeId === 0) return null;
  return String(edgeId);
}

/**
 * Runs skill `key` for ongrid's execute endpoint through the same path and policy as `POST
 * /api/v1/skills/{name}/calls` with `wait: true` (requestCall: lookup, persona — the token's own, else
 * `default` — args check against the schema, policy, secrets, audit, queue, a worker): `params`
 * (absent or null = `{}`) are the args, `edge_id` the target (targetOfEdge), refused with 404 when
 * no live worker has that name or label (the answer would never come). Returns the answer in
 * ongrid's shapes: `200 {result}` when the call succeeded (the stored result, unparsed), `200 {error}`
 * when it ended any other way (the skill's failure: its error, or the end status when it gave none),
 * and `403 {error, code: "forbidden", call_id, status}` when it waits for a person's confirmation or
 * for two approvers (the call id to follow it). Throws requestCall's AppErrors (404, 400
 * `invalid_args`, 403, 409, 413, 503), which the route answers in ongrid's error shape
 * (ongridErrorResponse).
 */
export async function executeOngridSkill(input: { key: string; body: OngridExecuteBody; identity: Identity; signal?: AbortSignal }): Promise<Response> {
  const given = input.body.params;
  // A JSON null (kept as its text) is ongrid's "no params", like an absent field.
  const params = given === undefined || given === null || (given instanceof JsonText && given.text.trim() === "null") ? {} : given;
  const target = targetOfEdge(input.body.edge_id);
  // ongrid's client waits for the answer: a call for an edge no worker serves would wait for ever.
  if (target !== null && !(await liveWorkerServes(target))) throw new AppError("not_found", `edge ${target} is not connected: no live worker has that name or label`);
  const { call, finished } = await requestCall({ skillName: input.key, args: params, persona: null, target, identity: input.identity, wait: true, signal: input.signal });
  if (call.status === "awaiting_confirmation" || call.status === "awaiting_approval") {
    const body: OngridErrorBody = { error: waitingMessage(call), code: "forbidden", call_id: call.id, status: call.status };
    return Response.json(body, { status: 403 });
  }
  // The client left before the call ended; nobody reads this answer, and the call goes on.
  if (!finished) throw new AppError("unavailable", `call ${call.id} is still ${call.status}; follow it at GET /api/v1/calls/${call.id}`);
  return jsonResponse(outputOf(call));
}

function waitingMessage(call: Call): string {
  if (call.status === "awaiting_confirmation") {
    return `${call.skill} needs a person's confirmation: call ${call.id} waits (POST /api/v1/calls/${call.id}/confirm)`;
  }
  return `${call.skill} needs two approvers' signatures: call ${call.id} waits for approval (GET /api/v1/approvals?status=pending)`;
}

/** ongrid's ExecuteOutput of an ended call: its result (the stored text, not parsed again) or its error. */
function outputOf(call: Call): OngridExecuteOutput {
  if (call.status !== "succeeded") return { error: call.error !== null && call.error !== "" ? call.error : `the call ended ${call.status}` };
  const output = {} as { result: unknown };
  const text = storedTextOf(call, "result");
  if (text !== undefined) defineStoredJson(output, "result", text, null);
  else output.result = call.result;
  return output;
}

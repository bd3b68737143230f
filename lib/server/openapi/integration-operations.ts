import { ONGRID_EXECUTE_SCHEMA, ONGRID_PERSONA_IMPORT_SCHEMA } from "@/lib/validation/ongrid-requests";
import { NEW_WEBHOOK_SCHEMA, WEBHOOK_CHANGE_SCHEMA } from "@/lib/validation/webhook-requests";
import type { ApiOperation } from "./api-operation";

const OPERATOR = { role: "operator" } as const;
const ADMIN = { role: "admin" } as const;
const ADMIN_PERSON = { role: "admin", person: true } as const;

/** ongrid's error body (internal/manager/server/skill/http.go writeErr), which execute answers instead of the console's envelope. */
const ONGRID_ERROR = {
  type: "object",
  required: ["error", "code"],
  properties: {
    error: { type: "string" },
    code: { type: "string", enum: ["unauthorized", "forbidden", "not-found", "invalid", "internal"] },
    call_id: { type: "string", description: "a call that waits for a confirmation or approval" },
    status: { type: "string", description: "that call's status" },
    details: { description: "the ajv errors of invalid params" },
  },
} as const;

/**
 * The operations of webhooks and the ongrid drop-in (DESIGN.md "Integrations"), for
 * lib/server/openapi/api-operations.ts.
 */
export const INTEGRATION_OPERATIONS: readonly ApiOperation[] = [
  { method: "GET", path: "/api/v1/webhooks", tag: "Webhooks", summary: "List webhooks (never a secret)", access: ADMIN, responses: { 200: "`{webhooks: [Webhook]}`, oldest first" } },
  {
    method: "POST",
    path: "/api/v1/webhooks",
    tag: "Webhooks",
    summary: "Add a webhook",
    description: "Deliveries are JSON POSTs signed with HMAC-SHA256 of the exact body (`X-Console-Signature: sha256=…`), or Slack messages; retried with backoff for a day.",
    access: ADMIN_PERSON,
    body: { schema: NEW_WEBHOOK_SCHEMA, required: true },
    responses: { 201: "`{webhook, secret}`: the signing secret is shown only here", 400: "a bad address, an unknown event or format" },
  },
  { method: "GET", path: "/api/v1/webhooks/{id}", tag: "Webhooks", summary: "Read a webhook", access: ADMIN, responses: { 200: "`{webhook}`", 404: "unknown webhook" } },
  { method: "PATCH", path: "/api/v1/webhooks/{id}", tag: "Webhooks", summary: "Change a webhook's address, events, format, or enable or disable it", access: ADMIN_PERSON, body: { schema: WEBHOOK_CHANGE_SCHEMA, required: true }, responses: { 200: "`{webhook}`", 400: "a bad field", 404: "unknown webhook" } },
  { method: "DELETE", path: "/api/v1/webhooks/{id}", tag: "Webhooks", summary: "Delete a webhook and its delivery log", access: ADMIN_PERSON, responses: { 200: "`{webhook}` as it was", 404: "unknown webhook" } },
  {
    method: "GET",
    path: "/api/v1/webhooks/{id}/deliveries",
    tag: "Webhooks",
    summary: "A webhook's delivery log, newest first",
    access: ADMIN,
    query: [
      { name: "limit", description: "default 50, at most 200", schema: { type: "integer", minimum: 1, maximum: 200 } },
      { name: "before", description: "only deliveries with a smaller id (paging)", schema: { type: "integer" } },
    ],
    responses: { 200: "`{deliveries: [Delivery]}`: status, attempts, last answer, next attempt, the payload as sent", 400: "a limit out of range", 404: "unknown webhook" },
  },
  { method: "POST", path: "/api/v1/webhooks/{id}/test", tag: "Webhooks", summary: "Send a test (`ping`) delivery", access: ADMIN_PERSON, responses: { 202: "`{delivery}` queued", 404: "unknown webhook" } },

  {
    method: "POST",
    path: "/api/v1/skills/{name}/execute",
    tag: "ongrid",
    summary: "Run a skill, answering ongrid's shapes",
    description: "`{params, edge_id?}` runs a call through the same path and policy as `POST /api/v1/skills/{name}/calls` (`wait: true`, `edge_id` as its target). Errors other than 401 use ongrid's body `{error, code}`.",
    access: OPERATOR,
    body: { schema: ONGRID_EXECUTE_SCHEMA },
    responses: {
      200: { description: "`{result}`, or `{error}` when the skill failed", schema: { type: "object", properties: { result: {}, error: { type: "string" } } } },
      400: { description: "`invalid`: bad params or body", schema: ONGRID_ERROR },
      403: { description: "`forbidden`: refused, or waiting for a confirmation or approval (`call_id`, `status`)", schema: ONGRID_ERROR },
      404: { description: "`not-found`: unknown skill, or an `edge_id` no live worker serves", schema: ONGRID_ERROR },
      413: { description: "`internal`: params past SKILL_ARGS_LIMIT_BYTES", schema: ONGRID_ERROR },
    },
  },
  {
    method: "POST",
    path: "/api/v1/personas/import/ongrid",
    tag: "ongrid",
    summary: "Preview or import ongrid persona .md files",
    access: ADMIN,
    body: { schema: ONGRID_PERSONA_IMPORT_SCHEMA, required: true },
    responses: { 200: "`{saved, personas: [{file, persona, replaces, notes}], created, replaced}`", 400: "names the file and field that cannot be mapped without widening it; nothing is stored", 413: "too large" },
  },
];

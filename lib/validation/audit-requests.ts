import type { JsonSchema } from "@/lib/types/skill";

/**
 * The query parameters of the audit trail's routes (issue 14 point 6), as JSON Schemas over the query
 * read as an object (lib/server/http/request-query.ts: one value per name, integers as numbers), so the
 * routes validate with the same ajv helpers as request bodies and the OpenAPI document can be
 * generated from them. Every object refuses unknown names: a mistyped filter (`?user=`) must not
 * quietly answer the whole trail.
 */

/** Text without control characters (a filter is typed or copied from a row, never holds a line break). */
const PLAIN_TEXT = "^[^\\u0000-\\u001f\\u007f]+$";

/**
 * An action, or an action prefix ending in `.*`: lower-case words of letters, digits and `_`
 * separated by dots (`approval.signed`, `worker_token.*`, `pack.approval.*`).
 */
export const AUDIT_ACTION_FILTER_PATTERN = "^[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)*(\\.\\*)?$";

/** Largest page of `GET /api/v1/audit`. */
export const AUDIT_LIST_MAX_LIMIT = 500;

const FILTERS = {
  actor: { type: "string", minLength: 1, maxLength: 320, pattern: PLAIN_TEXT, description: "exactly this actor: an email, token:<name> (<owner>), system, …" },
  skill: { type: "string", minLength: 1, maxLength: 200, pattern: PLAIN_TEXT, description: "exactly this skill" },
  action: { type: "string", maxLength: 100, pattern: AUDIT_ACTION_FILTER_PATTERN, description: "exactly this action, or a prefix ending in .* (approval.*)" },
  callId: { type: "string", minLength: 1, maxLength: 100, pattern: PLAIN_TEXT, description: "one call's entries" },
  before: { type: "integer", minimum: 1, description: "only entries with an id below this one (paging)" },
} as const;

/** `GET /api/v1/audit?limit=&before=&actor=&skill=&action=&callId=`. */
export const AUDIT_LIST_QUERY_SCHEMA = {
  type: "object",
  additionalProperties: false,
  properties: { ...FILTERS, limit: { type: "integer", minimum: 1, maximum: AUDIT_LIST_MAX_LIMIT, description: "most entries answered (default 100)" } },
} as const satisfies JsonSchema;

/** `GET /api/v1/audit/export?format=csv|jsonl&before=&actor=&skill=&action=&callId=`. */
export const AUDIT_EXPORT_QUERY_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["format"],
  properties: { ...FILTERS, format: { enum: ["csv", "jsonl"], description: "csv (RFC 4180) or jsonl (one entry per line)" } },
} as const satisfies JsonSchema;

/** The list query once checked against AUDIT_LIST_QUERY_SCHEMA. */
export interface AuditListQuery {
  actor?: string;
  skill?: string;
  action?: string;
  callId?: string;
  before?: number;
  limit?: number;
}

/** The export query once checked against AUDIT_EXPORT_QUERY_SCHEMA. */
export interface AuditExportQuery extends Omit<AuditListQuery, "limit"> {
  format: "csv" | "jsonl";
}

import { CALL_STATUSES } from "@/lib/types/call";
import { APPROVAL_STATUSES } from "@/lib/types/approval";
import { SIGN_IN_SCHEMA } from "@/lib/validation/auth-requests";
import { CALL_REQUEST_SCHEMA, CONFIRM_REQUEST_SCHEMA, DENY_REQUEST_SCHEMA, NEW_PRESET_SCHEMA, PRESET_CHANGE_SCHEMA, TOOL_CALL_REQUEST_SCHEMA } from "@/lib/validation/call-requests";
import { NEW_PERSONA_SCHEMA, PERSONA_IMPORT_SCHEMA, PERSONA_REPLACEMENT_SCHEMA } from "@/lib/validation/persona-requests";
import { AUDIT_EXPORT_QUERY_SCHEMA, AUDIT_LIST_QUERY_SCHEMA } from "@/lib/validation/audit-requests";
import { answerOf, type ApiOperation, type QueryParameter } from "./api-operation";
import { queryOf } from "./query-parameters";

const VIEWER = { role: "viewer" } as const;
const OPERATOR = { role: "operator" } as const;
const ADMIN = { role: "admin" } as const;

const limit = (max: number, fallback: number): QueryParameter => ({ name: "limit", description: `at most this many (default ${fallback}, at most ${max})`, schema: { type: "integer", minimum: 1, maximum: max } });
const text = (name: string, description: string, required = false): QueryParameter => ({ name, description, schema: { type: "string" }, required });
const EVENT_STREAM = { description: "a `text/event-stream`", schema: { type: "string" }, contentType: "text/event-stream" } as const;

/**
 * The operations of skills, calls, approvals, agent tools, personas, sign-in, the audit trail and the
 * loader (DESIGN.md "HTTP interface"), for lib/server/openapi/api-operations.ts.
 */
export const CONSOLE_OPERATIONS: readonly ApiOperation[] = [
  { method: "POST", path: "/api/v1/auth/login", tag: "Sign-in", summary: "Sign in", access: "public", body: { schema: SIGN_IN_SCHEMA, required: true }, responses: { 200: "`{user}`, with the session cookie set", 400: "a malformed body", 401: "wrong email or password", 429: "too many failures of this account from this address; `Retry-After` in seconds" } },
  { method: "POST", path: "/api/v1/auth/logout", tag: "Sign-in", summary: "Sign out", access: VIEWER, responses: { 200: "`{ok: true}`; the session is deleted and its cookie cleared" } },
  { method: "GET", path: "/api/v1/auth/session", tag: "Sign-in", summary: "Who is asking", access: VIEWER, responses: { 200: "`{identity}`: person or token, role and persona" } },

  { method: "GET", path: "/api/v1/skills", tag: "Skills", summary: "List skills", access: VIEWER, query: [text("category", "only this category"), text("q", "search text"), text("persona", "only the skills this persona may call (an API token always lists as its own)")], responses: { 200: answerOf("`{skills: [Skill]}` by category, then name", { skills: ["Skill"] }), 400: "an unknown persona", 403: "a token naming another persona" } },
  { method: "GET", path: "/api/v1/skills/{name}", tag: "Skills", summary: "Read one skill (level 2 for native skills)", access: VIEWER, responses: { 200: answerOf("`{skill: Skill}` with instructions and resource lists", { skill: "Skill" }), 403: "outside an API token's persona", 404: "unknown skill" } },
  { method: "GET", path: "/api/v1/skills/{name}/resources/{path}", tag: "Skills", summary: "Read a native skill's resource file (level 3)", access: VIEWER, query: [{ name: "format", description: "raw (default): the file; json: `{resource}`", schema: { enum: ["raw", "json"] } }], responses: { 200: { description: "the file (text/plain or application/octet-stream), or `{resource}` with ?format=json", contentType: "application/octet-stream", schema: { type: "string" } }, 400: "another format", 403: "outside an API token's persona", 404: "unknown skill or file, SKILL.md, a hidden file, a path outside the folder", 413: "larger than SKILL_RESOURCE_LIMIT_BYTES" } },
  { method: "GET", path: "/api/v1/skills/{name}/workers", tag: "Skills", summary: "Which workers hold which digest of a skill", access: VIEWER, responses: { 200: "SkillHolders `{digest, digestError, workers}`", 403: "outside an API token's persona", 404: "unknown skill" } },
  { method: "POST", path: "/api/v1/skills/{name}/calls", tag: "Calls", summary: "Run a skill", access: OPERATOR, body: { schema: CALL_REQUEST_SCHEMA }, responses: { 200: answerOf("`{call}` at its end state", { call: "Call" }), 202: answerOf("`{call}` awaiting confirmation or approval, or running (`wait: false`)", { call: "Call" }), 400: "`invalid_args` (ajv errors in details, nothing spawned), a bad body or unknown persona", 403: "refused by policy, or a token naming another persona", 404: "unknown skill", 413: "args past SKILL_ARGS_LIMIT_BYTES" } },
  { method: "GET", path: "/api/v1/skills/{name}/presets", tag: "Presets", summary: "List a skill's argument presets", access: VIEWER, responses: { 200: "`{presets: [ArgPreset]}` by name" } },
  { method: "POST", path: "/api/v1/skills/{name}/presets", tag: "Presets", summary: "Save an argument preset", access: OPERATOR, body: { schema: NEW_PRESET_SCHEMA, required: true }, responses: { 201: "`{preset}`", 400: "a bad name or body; `invalid_args` for args the skill refuses", 404: "unknown skill", 409: "a taken name, or 100 presets already", 413: "args past 64 KiB" } },
  { method: "PUT", path: "/api/v1/skills/{name}/presets/{presetId}", tag: "Presets", summary: "Rename a preset or replace its args", access: OPERATOR, body: { schema: PRESET_CHANGE_SCHEMA, required: true }, responses: { 200: "`{preset}`", 400: "a bad name or body", 404: "unknown preset", 409: "a taken name" } },
  { method: "DELETE", path: "/api/v1/skills/{name}/presets/{presetId}", tag: "Presets", summary: "Delete a preset", access: OPERATOR, responses: { 200: "`{preset}` as it was", 404: "unknown preset" } },

  { method: "GET", path: "/api/v1/calls", tag: "Calls", summary: "List calls, newest first", access: VIEWER, query: [text("skill", "only this skill's"), { name: "status", description: "only calls in this status", schema: { enum: [...CALL_STATUSES] } }, limit(500, 50)], responses: { 200: answerOf("`{calls: [Call]}`", { calls: ["Call"] }), 400: "a bad filter" } },
  { method: "GET", path: "/api/v1/calls/{id}", tag: "Calls", summary: "Read a call with its events", access: VIEWER, query: [{ name: "events", description: "none: leave events out", schema: { enum: ["none"] } }, { name: "afterSeq", description: "events after this seq", schema: { type: "integer", minimum: 0 } }, limit(5000, 5000)], responses: { 200: answerOf("`{call}` with `events`", { call: "Call" }), 400: "a bad number", 404: "unknown call" } },
  { method: "GET", path: "/api/v1/calls/{id}/events", tag: "Calls", summary: "Follow a call's timeline", description: "Stored lines after `Last-Event-ID` (header or `lastEventId` query), live lines while it runs, then one `end` event with the call.", access: VIEWER, query: [{ name: "lastEventId", description: "replay after this seq (the Last-Event-ID header wins)", schema: { type: "integer", minimum: 0 } }], responses: { 200: EVENT_STREAM, 404: "unknown call", 429: "16 open streams of this person already", 503: "too many open streams on this replica" } },
  { method: "GET", path: "/api/v1/calls/{id}/timeline.txt", tag: "Calls", summary: "Download a call's timeline as text", access: VIEWER, responses: { 200: { description: "one `seq<TAB>time<TAB>stream<TAB>line` per event", contentType: "text/plain", schema: { type: "string" } }, 404: "unknown call" } },
  { method: "POST", path: "/api/v1/calls/{id}/cancel", tag: "Calls", summary: "Cancel a call", access: VIEWER, description: "The requester, or an operator and above.", responses: { 200: "`{call}` cancelled", 403: "neither the requester nor an operator", 404: "unknown call", 409: "`not_running`: it already ended" } },
  { method: "POST", path: "/api/v1/calls/{id}/confirm", tag: "Calls", summary: "Confirm a mutating call", access: { role: "operator", person: true }, body: { schema: CONFIRM_REQUEST_SCHEMA }, responses: { 200: "`{call}` at its end state", 202: "`{call}` at once with `wait: false`", 400: "a bad body", 403: "a token, or below operator", 404: "unknown call", 409: "not awaiting confirmation" } },

  { method: "GET", path: "/api/v1/approvals", tag: "Approvals", summary: "List approvals, newest first", access: VIEWER, query: [{ name: "status", description: "only this status (every status when absent)", schema: { enum: [...APPROVAL_STATUSES] } }, text("callId", "only this call's"), limit(500, 100)], responses: { 200: answerOf("`{approvals: [Approval]}`", { approvals: ["Approval"] }), 400: "an unknown status" } },
  { method: "GET", path: "/api/v1/approvals/events", tag: "Approvals", summary: "Be told when approvals change", description: "`event: ready` at once, then `event: change` whenever an approval or a call awaiting confirmation changes.", access: VIEWER, responses: { 200: EVENT_STREAM, 429: "16 open streams of this person already", 503: "too many open streams on this replica" } },
  { method: "POST", path: "/api/v1/approvals/{id}/sign", tag: "Approvals", summary: "Sign an approval", access: { role: "approver", person: true }, responses: { 200: answerOf("`{approval}` (a pack's: `{pack, approval}`)", { approval: "Approval" }), 403: "the requester, a token, or below approver", 404: "unknown approval", 409: "already signed by this person, or not pending" } },
  { method: "POST", path: "/api/v1/approvals/{id}/deny", tag: "Approvals", summary: "Deny an approval", access: { role: "approver", person: true }, body: { schema: DENY_REQUEST_SCHEMA, required: true }, responses: { 200: answerOf("`{approval}` denied (a pack's: `{pack, approval}`)", { approval: "Approval" }), 400: "no reason, or one past 500 characters", 403: "a token, or below approver", 404: "unknown approval", 409: "not pending" } },

  { method: "GET", path: "/api/v1/tools", tag: "Agent tools", summary: "LLM tool definitions for a persona", access: VIEWER, query: [text("persona", "the persona (a person must name one; a token gets its own)"), { name: "format", description: "default openai", schema: { enum: ["openai", "anthropic"] } }], responses: { 200: "`{tools: [...]}`", 400: "no or unknown persona, unknown format", 403: "a token naming another persona" } },
  { method: "POST", path: "/api/v1/tools/call", tag: "Agent tools", summary: "Call an agent tool", access: VIEWER, description: "Running a skill needs operator.", body: { schema: TOOL_CALL_REQUEST_SCHEMA, required: true }, responses: { 200: "`{result}`", 202: "`{callId, status, message, link}` while it awaits a person", 400: "a bad body, or `invalid_args`", 403: "role, lists or policy", 404: "unknown tool or skill", 409: "an unavailable skill", 413: "args past SKILL_ARGS_LIMIT_BYTES" } },
  { method: "POST", path: "/api/mcp", tag: "Agent tools", summary: "MCP server (Streamable HTTP, stateless)", description: "JSON-RPC 2.0 requests: initialize, tools/list, tools/call — the same skills and policy as the REST API.", access: "mcp", body: { schema: { type: ["object", "array"], description: "a JSON-RPC 2.0 request, notification or batch" }, required: true }, responses: { 200: { description: "the JSON-RPC answer", schema: { type: "object" } }, 202: { description: "a notification, accepted" } } },
  { method: "GET", path: "/api/mcp", tag: "Agent tools", summary: "No standalone event stream", access: "mcp", responses: { 405: { description: "a stateless server offers no stream" } } },
  { method: "DELETE", path: "/api/mcp", tag: "Agent tools", summary: "No session to end", access: "mcp", responses: { 405: { description: "a stateless server has no session" } } },

  { method: "GET", path: "/api/v1/personas", tag: "Personas", summary: "List personas", access: VIEWER, responses: { 200: answerOf("`{personas: [Persona]}` by name", { personas: ["Persona"] }) } },
  { method: "POST", path: "/api/v1/personas", tag: "Personas", summary: "Create a persona", access: ADMIN, body: { schema: NEW_PERSONA_SCHEMA, required: true }, responses: { 201: "`{persona}`", 400: "a bad or unknown field (named in details `{persona, field}`)", 409: "the name is taken" } },
  { method: "GET", path: "/api/v1/personas/{name}", tag: "Personas", summary: "Read a persona", access: VIEWER, responses: { 200: answerOf("`{persona}`", { persona: "Persona" }), 404: "unknown persona" } },
  { method: "PUT", path: "/api/v1/personas/{name}", tag: "Personas", summary: "Replace a persona", access: ADMIN, body: { schema: PERSONA_REPLACEMENT_SCHEMA, required: true }, responses: { 200: "`{persona}`", 400: "a bad or unknown field, or another name", 404: "unknown persona" } },
  { method: "DELETE", path: "/api/v1/personas/{name}", tag: "Personas", summary: "Delete a persona", access: ADMIN, responses: { 200: "`{persona}` as it was", 404: "unknown persona", 409: "the default persona, or one that live API tokens use" } },
  { method: "GET", path: "/api/v1/personas/{name}/prompt", tag: "Personas", summary: "The persona's level-1 skills prompt", access: VIEWER, query: [{ name: "format", description: "json (default) or text", schema: { enum: ["json", "text"] } }], responses: { 200: "`{persona, prompt}`, or the prompt as text/plain", 400: "another format", 403: "a token reading another persona's prompt", 404: "unknown persona" } },
  { method: "GET", path: "/api/v1/personas/export", tag: "Personas", summary: "Every persona as YAML", access: VIEWER, responses: { 200: { description: "`personas.yaml`", contentType: "text/yaml", schema: { type: "string" } } } },
  { method: "POST", path: "/api/v1/personas/import", tag: "Personas", summary: "Create or replace personas from YAML", access: ADMIN, body: { schema: PERSONA_IMPORT_SCHEMA, contentType: "text/yaml", required: true, description: "a YAML list of personas, or one; read by lib/server/personas/import-personas.ts" }, responses: { 200: "`{personas, created, replaced}`", 400: "names the persona and field (details `{persona, field}`); nothing changes", 413: "past 256 KiB" } },

  { method: "GET", path: "/api/v1/audit", tag: "Audit", summary: "The audit trail, newest first", access: VIEWER, query: queryOf(AUDIT_LIST_QUERY_SCHEMA), responses: { 200: answerOf("`{entries: [AuditEntry]}`", { entries: ["AuditEntry"] }), 400: "a bad or unknown parameter, named" } },
  {
    method: "GET",
    path: "/api/v1/audit/export",
    tag: "Audit",
    summary: "Download the filtered audit trail as CSV or JSON lines",
    access: VIEWER,
    query: queryOf(AUDIT_EXPORT_QUERY_SCHEMA),
    responses: { 200: { description: "the entries, newest first, streamed as an attachment", schema: { type: "string" }, contentType: "text/csv" }, 400: "a missing format, a bad or unknown parameter, named" },
  },
  { method: "GET", path: "/api/v1/loader", tag: "Loader", summary: "The loader report", access: VIEWER, responses: { 200: "`{report, history, watch}`" } },
  { method: "POST", path: "/api/v1/loader/reload", tag: "Loader", summary: "Rescan every root", access: OPERATOR, responses: { 200: "`{report}` of the fresh scan" } },
];

import { NEW_API_TOKEN_SCHEMA, NEW_USER_SCHEMA, USER_CHANGE_SCHEMA } from "@/lib/validation/auth-requests";
import { PACK_STAGE_SCHEMA } from "@/lib/validation/pack-requests";
import { NEW_SECRET_SCHEMA, SECRET_CHANGE_SCHEMA } from "@/lib/validation/secret-requests";
import { CLAIM_REQUEST_SCHEMA, EVENTS_REPORT_SCHEMA, FINISH_REPORT_SCHEMA, LEASE_REQUEST_SCHEMA, NEW_WORKER_TOKEN_SCHEMA, WORKER_REGISTRATION_SCHEMA, WORKER_SKILLS_SCHEMA } from "@/lib/validation/worker-requests";
import { answerOf, type ApiOperation } from "./api-operation";

const OPERATOR = { role: "operator" } as const;
const ADMIN = { role: "admin" } as const;
const ADMIN_PERSON = { role: "admin", person: true } as const;

/**
 * The operations of users, API tokens, secrets, packs, workers, worker tokens and the worker protocol
 * (DESIGN.md "HTTP interface", "Skill secrets", "Skill packs", "Workers and the sandbox"), for
 * lib/server/openapi/api-operations.ts.
 */
export const ADMIN_OPERATIONS: readonly ApiOperation[] = [
  { method: "GET", path: "/api/v1/users", tag: "Users", summary: "List people", access: ADMIN, responses: { 200: "`{users: [ConsoleUser]}`, oldest first" } },
  { method: "POST", path: "/api/v1/users", tag: "Users", summary: "Create a person", access: ADMIN, body: { schema: NEW_USER_SCHEMA, required: true }, responses: { 201: "`{user}`", 400: "a bad field (short password, unknown role, an email without a dotted domain)", 409: "a taken email" } },
  { method: "PATCH", path: "/api/v1/users/{id}", tag: "Users", summary: "Change a person's role", access: ADMIN, body: { schema: USER_CHANGE_SCHEMA, required: true }, responses: { 200: "`{user}`", 400: "a bad role", 404: "unknown person", 409: "it would demote the last admin" } },

  { method: "GET", path: "/api/v1/tokens", tag: "API tokens", summary: "List API tokens", access: OPERATOR, responses: { 200: "`{tokens: [ApiTokenInfo]}`: the caller's own, or all for an admin" } },
  { method: "POST", path: "/api/v1/tokens", tag: "API tokens", summary: "Create an API token", access: { role: "operator", person: true }, body: { schema: NEW_API_TOKEN_SCHEMA, required: true }, responses: { 201: "`{token, info}`: the token is shown only here", 400: "a bad field", 403: "sent with a token", 404: "unknown persona" } },
  { method: "DELETE", path: "/api/v1/tokens/{id}", tag: "API tokens", summary: "Revoke an API token", access: OPERATOR, description: "Its owner, or an admin.", responses: { 200: "`{token}` revoked", 404: "unknown, or not the caller's" } },

  { method: "GET", path: "/api/v1/secrets", tag: "Secrets", summary: "List secrets (never a value)", access: ADMIN, responses: { 200: "`{secrets: [Secret]}` by name" } },
  { method: "POST", path: "/api/v1/secrets", tag: "Secrets", summary: "Set a secret", access: ADMIN_PERSON, body: { schema: NEW_SECRET_SCHEMA, required: true }, responses: { 201: "`{secret}`; the value is never served again", 400: "a bad name, value or skill", 409: "a secret of that name exists" } },
  { method: "PUT", path: "/api/v1/secrets/{name}", tag: "Secrets", summary: "Change a secret's value or skills", access: ADMIN_PERSON, body: { schema: SECRET_CHANGE_SCHEMA, required: true }, responses: { 200: "`{secret}`", 400: "a bad value or skill", 404: "unknown secret" } },
  { method: "DELETE", path: "/api/v1/secrets/{name}", tag: "Secrets", summary: "Delete a secret", access: ADMIN_PERSON, responses: { 200: "`{secret}` as it was", 404: "unknown secret" } },

  { method: "GET", path: "/api/v1/packs", tag: "Packs", summary: "List pack versions, newest first", access: ADMIN, responses: { 200: answerOf("`{packs: [Pack]}`", { packs: ["Pack"] }) } },
  { method: "POST", path: "/api/v1/packs", tag: "Packs", summary: "Stage a pack", description: "JSON `{source}`, or a `.tar.gz` sent as `application/gzip` (`?plugin=` names a marketplace plugin).", access: ADMIN_PERSON, query: [{ name: "plugin", description: "with an upload: the marketplace plugin to stage", schema: { type: "string" } }], body: { schema: PACK_STAGE_SCHEMA, required: true }, responses: { 201: answerOf("`{pack}` with status `staged`", { pack: "Pack" }), 400: "the pack is refused (the reason says why); nothing is kept", 413: "past PACK_MAX_BYTES" } },
  { method: "POST", path: "/api/v1/packs/marketplace", tag: "Packs", summary: "List a Claude Code marketplace's plugins", access: ADMIN_PERSON, body: { schema: PACK_STAGE_SCHEMA, required: true }, responses: { 200: "`{plugins: [MarketplacePlugin]}`", 400: "the source cannot be read or holds no marketplace" } },
  { method: "GET", path: "/api/v1/packs/{id}", tag: "Packs", summary: "Review a pack version with its diffs", access: ADMIN, responses: { 200: answerOf("`{pack, files, filesAgainst, digestList}`", { pack: "Pack" }), 404: "unknown pack" } },
  { method: "DELETE", path: "/api/v1/packs/{id}", tag: "Packs", summary: "Uninstall or discard a pack version", access: ADMIN_PERSON, responses: { 200: answerOf("`{pack}`", { pack: "Pack" }), 404: "unknown pack", 409: "the version a rollback would return to" } },
  { method: "POST", path: "/api/v1/packs/{id}/enable", tag: "Packs", summary: "Enable a staged pack", access: ADMIN_PERSON, responses: { 200: answerOf("`{pack}` enabled", { pack: "Pack" }), 202: answerOf("`{pack, approvalId}`: a dangerous skill waits for a second admin", { pack: "Pack" }), 404: "unknown pack", 409: "enabled already, waiting, or changed since staging" } },
  { method: "POST", path: "/api/v1/packs/{id}/rollback", tag: "Packs", summary: "Enable the previous version again", access: ADMIN_PERSON, responses: { 200: answerOf("`{pack}`", { pack: "Pack" }), 202: answerOf("`{pack, approvalId}`", { pack: "Pack" }), 404: "unknown pack", 409: "not enabled, or no earlier version" } },

  { method: "GET", path: "/api/v1/workers", tag: "Workers", summary: "List workers", access: OPERATOR, responses: { 200: answerOf("`{workers: [Worker]}`", { workers: ["Worker"] }) } },
  { method: "GET", path: "/api/v1/workers/{id}/skills", tag: "Workers", summary: "Page through the skills a worker holds", access: OPERATOR, query: [{ name: "after", description: "names after this one", schema: { type: "string" } }, { name: "limit", description: "default 200, at most 500", schema: { type: "integer", minimum: 1, maximum: 500 } }, { name: "q", description: "only names containing this", schema: { type: "string" } }], responses: { 200: "WorkerSkillPage `{skills, next}`", 400: "a limit out of range", 404: "unknown worker" } },
  { method: "GET", path: "/api/v1/worker-tokens", tag: "Workers", summary: "List worker tokens", access: ADMIN, responses: { 200: "`{workerTokens: [WorkerToken]}`, newest first" } },
  { method: "POST", path: "/api/v1/worker-tokens", tag: "Workers", summary: "Create a worker token", access: ADMIN_PERSON, body: { schema: NEW_WORKER_TOKEN_SCHEMA, required: true }, responses: { 201: "`{token, workerToken}`: the token is shown once", 400: "a bad name or label" } },
  { method: "DELETE", path: "/api/v1/worker-tokens/{id}", tag: "Workers", summary: "Revoke a worker token", access: ADMIN_PERSON, responses: { 200: "`{workerToken}`; its running calls end `interrupted`", 404: "unknown token" } },

  { method: "POST", path: "/api/v1/workers/register", tag: "Worker protocol", summary: "Register a worker session", access: "worker", body: { schema: WORKER_REGISTRATION_SCHEMA, required: true }, responses: { 201: "`{worker: WorkerSession}`", 400: "a body the schema refuses", 409: "too many live sessions of this token" } },
  { method: "DELETE", path: "/api/v1/workers/{id}", tag: "Worker protocol", summary: "End a worker session", access: "worker", responses: { 204: "ended", 403: "another token's session" } },
  { method: "POST", path: "/api/v1/workers/{id}/skills", tag: "Worker protocol", summary: "Report the skills a worker holds", access: "worker", body: { schema: WORKER_SKILLS_SCHEMA, required: true }, responses: { 200: "`{skills: n}`", 400: "a body the schema refuses", 403: "another token's session" } },
  { method: "POST", path: "/api/v1/workers/{id}/claim", tag: "Worker protocol", summary: "Long-poll for calls", access: "worker", body: { schema: CLAIM_REQUEST_SCHEMA, required: true }, responses: { 200: "ClaimResponse `{calls, cancel, rescan}`", 400: "a body the schema refuses", 403: "another token's session" } },
  { method: "POST", path: "/api/v1/workers/{id}/lease", tag: "Worker protocol", summary: "Renew the leases of running calls", access: "worker", body: { schema: LEASE_REQUEST_SCHEMA, required: true }, responses: { 200: "`{cancel, lost}`", 400: "a body the schema refuses", 403: "another token's session" } },
  { method: "POST", path: "/api/v1/workers/{id}/calls/{callId}/events", tag: "Worker protocol", summary: "Report timeline lines", access: "worker", body: { schema: EVENTS_REPORT_SCHEMA, required: true }, responses: { 204: "stored and streamed", 400: "a body the schema refuses", 403: "a call this worker did not claim", 404: "unknown call", 409: "the call ended, or a seq already stored" } },
  { method: "POST", path: "/api/v1/workers/{id}/calls/{callId}/finish", tag: "Worker protocol", summary: "Report a call's end state", access: "worker", body: { schema: FINISH_REPORT_SCHEMA, required: true }, responses: { 200: "`{call}` at its end state", 400: "a body the schema refuses", 403: "a call this worker did not claim", 404: "unknown call", 409: "it already ended" } },

  { method: "GET", path: "/api/v1/openapi.json", tag: "Reference", summary: "This document", access: { role: "viewer" }, responses: { 200: { description: "the OpenAPI 3.1 document of every route", schema: { type: "object" } } } },
];

import { APPROVAL_STATUSES } from "@/lib/types/approval";
import { CALL_STATUSES } from "@/lib/types/call";
import { PACK_STATUSES } from "@/lib/types/pack";
import { PERMISSION_MODES } from "@/lib/types/persona";
import type { JsonSchema } from "@/lib/types/skill";

/**
 * The answers' main shapes, as `components.schemas` of `GET /api/v1/openapi.json` (DESIGN.md "HTTP
 * interface": Skill, Call, events, Approval, Pack, Worker, AuditEntry, and the one error envelope).
 * They describe lib/types (Call, Approval, Skill, Persona, Pack, WorkerInfo, AuditEntry) by their stable fields and allow more, so a field added to a type
 * never makes the document wrong; the enums come from lib/types itself.
 */

const TIME = { type: "string", format: "date-time" } as const;
const NULLABLE_TIME = { type: ["string", "null"], format: "date-time" } as const;

/** `{error: {code, message, details?}}`: every refusal and failure (STYLE.md rule 3). */
export const ERROR_ENVELOPE_SCHEMA = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["code", "message"],
      properties: {
        code: { type: "string", description: "a closed list: unauthenticated, forbidden, bad_origin, bad_request, invalid_args, not_found, conflict, args_too_large, too_large, rate_limited, unavailable, internal, …" },
        message: { type: "string" },
        details: { description: "ajv errors for a refused body or args; other facts for some codes" },
      },
    },
  },
} as const satisfies JsonSchema;

/** One timeline line of a call (DESIGN.md `events[]`). */
export const CALL_EVENT_SCHEMA = {
  type: "object",
  required: ["seq", "at", "stream", "line"],
  properties: { seq: { type: "integer", minimum: 1 }, at: TIME, stream: { enum: ["stderr", "system"] }, line: { type: "string" } },
} as const satisfies JsonSchema;

/** A call (lib/types/call.ts Call). */
export const CALL_SCHEMA = {
  type: "object",
  required: ["id", "skill", "persona", "requestedBy", "args", "status", "result", "exitCode", "error", "startedAt", "endedAt", "durationMs"],
  properties: {
    id: { type: "string" },
    skill: { type: "string" },
    persona: { type: ["string", "null"] },
    requestedBy: { type: "string" },
    args: { type: ["object", "null"] },
    status: { enum: [...CALL_STATUSES] },
    result: { description: "the skill's stdout object, verbatim" },
    exitCode: { type: ["integer", "null"] },
    error: { type: ["string", "null"] },
    createdAt: TIME,
    startedAt: NULLABLE_TIME,
    endedAt: NULLABLE_TIME,
    durationMs: { type: ["integer", "null"] },
    worker: { type: ["string", "null"] },
    target: { type: ["string", "null"] },
    events: { type: "array", items: { $ref: "#/components/schemas/CallEvent" }, description: "GET /api/v1/calls/{id} only" },
  },
} as const satisfies JsonSchema;

/** A skill (lib/types/skill.ts Skill, as toPublicSkill answers it). */
export const SKILL_SCHEMA = {
  type: "object",
  required: ["name", "kind", "description", "category", "class", "available"],
  properties: {
    name: { type: "string" },
    kind: { enum: ["subprocess", "native"] },
    description: { type: "string" },
    category: { type: "string" },
    class: { enum: ["safe", "mutating", "dangerous"] },
    schema: { type: "object", description: "the JSON Schema of the args" },
    timeoutSeconds: { type: "number" },
    envAllow: { type: "array", items: { type: "string" } },
    source: { type: "object", properties: { root: { type: "string" }, path: { type: "string" } } },
    available: { type: "boolean" },
    unavailableReason: { type: ["string", "null"] },
    warnings: { type: "array", items: { type: "string" } },
    instructions: { type: "string", description: "native skills, GET /api/v1/skills/{name} only (level 2)" },
  },
} as const satisfies JsonSchema;

/** An approval (lib/types/approval.ts Approval). */
export const APPROVAL_SCHEMA = {
  type: "object",
  required: ["id", "callId", "status", "digest", "requestedBy", "signatures", "required", "expiresAt", "decidedBy", "reason"],
  properties: {
    id: { type: "string" },
    callId: { type: "string" },
    status: { enum: [...APPROVAL_STATUSES] },
    digest: { type: "string" },
    requestedBy: { type: "string" },
    signatures: { type: "array", items: { type: "object", required: ["by", "at"], properties: { by: { type: "string" }, at: TIME } } },
    required: { type: "integer" },
    expiresAt: TIME,
    decidedBy: { type: ["string", "null"] },
    reason: { type: ["string", "null"] },
    call: { $ref: "#/components/schemas/Call" },
  },
} as const satisfies JsonSchema;

/** A persona (lib/types/persona.ts Persona). */
export const PERSONA_SCHEMA = {
  type: "object",
  required: ["name", "description", "permission_mode", "skills"],
  properties: {
    name: { type: "string" },
    description: { type: "string" },
    permission_mode: { enum: [...PERMISSION_MODES] },
    skills: { type: "object", properties: { allow: { type: "array", items: { type: "string" } }, deny: { type: "array", items: { type: "string" } } } },
    categories: { type: "array", items: { type: "string" } },
    createdAt: TIME,
    updatedAt: TIME,
  },
} as const satisfies JsonSchema;

/** A pack version (lib/types/pack.ts Pack). */
export const PACK_SCHEMA = {
  type: "object",
  required: ["id", "name", "version", "description", "status", "source", "commit", "digest", "signedBy", "skills", "comparedWith", "previousVersion", "approvalId", "approvalRequestedBy", "stagedBy", "stagedAt", "enabledAt", "modifiedFiles"],
  properties: {
    id: { type: "string" },
    name: { type: "string" },
    version: { type: "string" },
    description: { type: "string" },
    status: { enum: [...PACK_STATUSES] },
    source: {
      type: "object",
      required: ["type"],
      properties: { type: { enum: ["folder", "upload", "git"] }, path: { type: "string" }, bytes: { type: "integer" }, url: { type: "string" }, ref: { type: "string" }, plugin: { type: "string" } },
    },
    commit: { type: ["string", "null"], description: "the git commit staged (40 hex digits); null for other sources" },
    digest: { type: "string", description: "SHA-256 (hex) of the pack's digest list" },
    signedBy: { type: ["string", "null"], description: "the trusted key whose signature `pack.sig` carries; null when unsigned" },
    skills: {
      type: "array",
      items: {
        type: "object",
        required: ["name", "kind", "class", "description", "folder", "sandbox", "secrets", "unavailableReason", "change", "digest"],
        properties: {
          name: { type: "string" },
          kind: { enum: ["subprocess", "native"] },
          class: { enum: ["safe", "mutating", "dangerous"] },
          description: { type: "string" },
          folder: { type: "string" },
          sandbox: { type: "object", description: "the sandbox access it declares" },
          secrets: { type: "array", items: { type: "string" } },
          unavailableReason: { type: ["string", "null"] },
          change: { enum: ["added", "changed", "removed", "same"] },
          digest: { type: "string" },
        },
      },
    },
    comparedWith: { type: ["object", "null"], required: ["id", "version", "enabledNow"], properties: { id: { type: "string" }, version: { type: "string" }, enabledNow: { type: "boolean" } } },
    previousVersion: { type: ["object", "null"], required: ["id", "version", "digest"], properties: { id: { type: "string" }, version: { type: "string" }, digest: { type: "string" } } },
    approvalId: { type: ["string", "null"] },
    approvalRequestedBy: { type: ["string", "null"] },
    stagedBy: { type: "string" },
    stagedAt: TIME,
    enabledAt: NULLABLE_TIME,
    modifiedFiles: { type: "array", items: { type: "string" } },
  },
} as const satisfies JsonSchema;

/** How a worker enforces one limit on a call (lib/types/worker.ts LimitEnforcement). */
const LIMIT_ENFORCEMENT = {
  type: "object",
  required: ["by", "value"],
  properties: { by: { enum: ["cgroup-v2", "cgroup-v1", "rlimit", "none"] }, value: { type: ["number", "null"] } },
} as const;

/** A worker as `GET /api/v1/workers` lists it (lib/types/worker.ts WorkerInfo). */
export const WORKER_SCHEMA = {
  type: "object",
  required: ["id", "name", "labels", "host", "version", "pid", "concurrency", "sandbox", "registeredAt", "lastSeenAt", "state", "running", "token", "skills", "skillCounts", "drifted"],
  properties: {
    id: { type: "string" },
    name: { type: "string" },
    labels: { type: "array", items: { type: "string" } },
    host: { type: "string" },
    version: { type: "string" },
    pid: { type: ["integer", "null"] },
    concurrency: { type: "integer", minimum: 1 },
    sandbox: {
      type: "object",
      required: ["requested", "mode", "warning", "uid", "limits", "kill"],
      properties: {
        requested: { enum: ["auto", "bwrap", "none"] },
        mode: { enum: ["bwrap", "none"] },
        warning: { type: ["string", "null"], description: "set when calls run with less isolation than DESIGN asks, or cannot run" },
        uid: { type: "integer" },
        limits: { type: "object", required: ["memory", "pids", "cpu"], properties: { memory: LIMIT_ENFORCEMENT, pids: LIMIT_ENFORCEMENT, cpu: LIMIT_ENFORCEMENT } },
        kill: { type: "string" },
      },
    },
    registeredAt: TIME,
    lastSeenAt: TIME,
    state: { enum: ["live", "lost", "stopped"] },
    running: { type: "integer", minimum: 0 },
    token: { type: "object", required: ["id", "name", "local"], properties: { id: { type: "string" }, name: { type: "string" }, local: { type: "boolean" } } },
    skills: {
      type: "array",
      description: "the first skills: drifted, then unavailable, then the rest",
      items: { type: "object", required: ["name", "digest", "available", "reason"], properties: { name: { type: "string" }, digest: { type: ["string", "null"] }, available: { type: "boolean" }, reason: { type: ["string", "null"] } } },
    },
    skillCounts: { type: "object", required: ["held", "unavailable", "drifted"], properties: { held: { type: "integer" }, unavailable: { type: "integer" }, drifted: { type: "integer" } } },
    drifted: { type: "array", items: { type: "string" }, description: "skills whose copy here has another digest than the console's" },
  },
} as const satisfies JsonSchema;

/** One entry of the audit trail (lib/types/audit.ts AuditEntry), every text masked of secrets' values. */
export const AUDIT_ENTRY_SCHEMA = {
  type: "object",
  required: ["id", "at", "action", "actor", "callId", "approvalId", "skill", "digest", "details"],
  properties: {
    id: { type: "integer" },
    at: TIME,
    action: { type: "string", description: "e.g. call.requested, approval.signed, auth.login" },
    actor: { type: "string", description: "an email, `token:<name> (<owner>)`, `worker-token:<name>`, `system` or `anonymous`" },
    callId: { type: ["string", "null"] },
    approvalId: { type: ["string", "null"] },
    skill: { type: ["string", "null"] },
    digest: { type: ["string", "null"] },
    details: { type: "object" },
  },
} as const satisfies JsonSchema;

/** Every named answer schema, by its name under `#/components/schemas/`. */
export const RESPONSE_SCHEMAS = {
  Error: ERROR_ENVELOPE_SCHEMA,
  CallEvent: CALL_EVENT_SCHEMA,
  Call: CALL_SCHEMA,
  Skill: SKILL_SCHEMA,
  Approval: APPROVAL_SCHEMA,
  Persona: PERSONA_SCHEMA,
  Pack: PACK_SCHEMA,
  Worker: WORKER_SCHEMA,
  AuditEntry: AUDIT_ENTRY_SCHEMA,
} as const;

/** The name of one schema under `#/components/schemas/`. */
export type ResponseSchemaName = keyof typeof RESPONSE_SCHEMAS;

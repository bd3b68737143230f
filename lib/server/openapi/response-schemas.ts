import { APPROVAL_STATUSES } from "@/lib/types/approval";
import { CALL_STATUSES } from "@/lib/types/call";
import { PERMISSION_MODES } from "@/lib/types/persona";
import type { JsonSchema } from "@/lib/types/skill";

/**
 * The answers' main shapes, as `components.schemas` of `GET /api/v1/openapi.json` (DESIGN.md "HTTP
 * interface": Skill, Call, events, Approval, and the one error envelope). They describe lib/types
 * (Call, Approval, Skill, Persona) by their stable fields and allow more, so a field added to a type
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

/** Every named answer schema, by its name under `#/components/schemas/`. */
export const RESPONSE_SCHEMAS = {
  Error: ERROR_ENVELOPE_SCHEMA,
  CallEvent: CALL_EVENT_SCHEMA,
  Call: CALL_SCHEMA,
  Skill: SKILL_SCHEMA,
  Approval: APPROVAL_SCHEMA,
  Persona: PERSONA_SCHEMA,
} as const;

/** The name of one schema under `#/components/schemas/`. */
export type ResponseSchemaName = keyof typeof RESPONSE_SCHEMAS;

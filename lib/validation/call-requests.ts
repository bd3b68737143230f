import type { JsonSchema } from "@/lib/types/skill";

/**
 * The request bodies of calls, confirmations, denials, presets and tool calls (DESIGN.md "HTTP
 * interface"). Each schema is the one the route checks the body with (lib/server/http/request-body.ts
 * checkRequestBody) and the one `GET /api/v1/openapi.json` publishes, so the two cannot drift. Every
 * object refuses unknown fields: a typo such as `argz` must never act as if the field were absent.
 */

/** A worker's name or label, as WORKER_NAME and WORKER_LABELS spell them. */
const WORKER_NAME_OR_LABEL = "^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$";
/** A persona's name as a caller names it: any string with a non-space (whether it exists is the verb's check). */
const PERSONA_NAME = { type: ["string", "null"], pattern: "\\S", description: "a persona's name; absent or null: the default persona (an API token: its own)" } as const;

/** `POST /api/v1/skills/{name}/calls` `{args, persona, target, wait}`; an empty body is `{}`. */
export const CALL_REQUEST_SCHEMA = {
  type: "object",
  additionalProperties: false,
  properties: {
    args: { type: "object", description: "the skill's arguments, checked against the skill's own schema (400 invalid_args, nothing spawned); default {}" },
    persona: PERSONA_NAME,
    wait: { type: "boolean", description: "false answers 202 at once instead of waiting for the end state; default true" },
    target: { type: ["string", "null"], pattern: WORKER_NAME_OR_LABEL, description: "a worker's name or label the call must run on; absent: any eligible worker" },
  },
} as const satisfies JsonSchema;

/** `POST /api/v1/calls/{id}/confirm`: empty, or `{wait}`. */
export const CONFIRM_REQUEST_SCHEMA = {
  type: "object",
  additionalProperties: false,
  properties: { wait: { type: "boolean", description: "false answers 202 at once; default true" } },
} as const satisfies JsonSchema;

/** `POST /api/v1/approvals/{id}/deny` `{reason}`: 1–500 characters once trimmed. */
export const DENY_REQUEST_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["reason"],
  properties: { reason: { type: "string", pattern: "\\S", description: "why; at most 500 characters once trimmed" } },
} as const satisfies JsonSchema;

const PRESET_NAME = { type: "string", pattern: "\\S", description: "1–100 characters once trimmed, no control characters; unique per skill" } as const;
const PRESET_ARGS = { type: "object", description: "the arguments, checked against the skill's schema (400 invalid_args); at most 64 KiB" } as const;

/** `POST /api/v1/skills/{name}/presets` `{name, args}`. */
export const NEW_PRESET_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["name"],
  properties: { name: PRESET_NAME, args: PRESET_ARGS },
} as const satisfies JsonSchema;

/** `PUT /api/v1/skills/{name}/presets/{id}` `{name?, args?}`. */
export const PRESET_CHANGE_SCHEMA = {
  type: "object",
  additionalProperties: false,
  properties: { name: PRESET_NAME, args: PRESET_ARGS },
} as const satisfies JsonSchema;

/** `POST /api/v1/tools/call` `{name, arguments, persona}`. */
export const TOOL_CALL_REQUEST_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["name"],
  properties: {
    name: { type: "string", minLength: 1, description: "a tool's name, as GET /api/v1/tools lists them" },
    arguments: { type: "object", description: "the tool's arguments, checked against its schema; default {}" },
    persona: PERSONA_NAME,
  },
} as const satisfies JsonSchema;

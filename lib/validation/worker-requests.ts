import type { JsonSchema } from "@/lib/types/skill";

/**
 * The request bodies of the worker protocol (`/api/v1/workers/…`, DESIGN.md "Workers and the sandbox"),
 * checked by the console with lib/server/http/request-body.ts before anything is stored. Shapes are
 * those of lib/types/worker.ts; every object refuses unknown fields and every string and list is
 * bounded, so a hostile worker cannot make the console store or scan without limit.
 */

const NAME = { type: "string", pattern: "^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$" } as const;
const LABEL = { type: "string", pattern: "^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$" } as const;
const ID = { type: "string", minLength: 1, maxLength: 100 } as const;
const DIGEST = { type: "string", pattern: "^[0-9a-f]{64}$" } as const;
const TEXT = (maxLength: number) => ({ type: "string", maxLength }) as const;
const LIMIT = {
  type: "object",
  additionalProperties: false,
  required: ["by", "value"],
  properties: { by: { enum: ["cgroup-v2", "cgroup-v1", "rlimit", "none"] }, value: { type: ["number", "null"] } },
} as const;

/** Most skills one worker may report. */
export const MAX_REPORTED_SKILLS = 50_000;
/** JSON values a registration or skills report may hold: five per reported skill (SKILL_REPORT) and room for the rest. */
export const SKILLS_REPORT_MAX_NODES = MAX_REPORTED_SKILLS * 5 + 1_000;
/** Most timeline events in one report. */
export const MAX_EVENTS_PER_REPORT = 5_000;

const SKILL_REPORT = {
  type: "object",
  additionalProperties: false,
  required: ["name", "digest", "available", "reason"],
  properties: { name: TEXT(200), digest: { anyOf: [DIGEST, { type: "null" }] }, available: { type: "boolean" }, reason: { type: ["string", "null"], maxLength: 2000 } },
} as const;

/** A slice of a registration's or skills report's `skills`, checked a slice at a time (lib/server/http/request-body.ts parseListedBody). */
export const SKILL_REPORT_SLICE_SCHEMA = { type: "array", items: SKILL_REPORT } as const satisfies JsonSchema;

/** Largest registration or skills report, in bytes: 50,000 skills of 150 bytes, with room to spare. */
export const SKILLS_REPORT_MAX_BYTES = 12 * 1024 * 1024;

/** `POST /api/v1/workers/register`. */
export const WORKER_REGISTRATION_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["name", "labels", "host", "version", "pid", "concurrency", "sandbox", "skills"],
  properties: {
    name: NAME,
    labels: { type: "array", items: LABEL, maxItems: 64, uniqueItems: true },
    host: TEXT(255),
    version: TEXT(100),
    pid: { type: ["integer", "null"], minimum: 1 },
    concurrency: { type: "integer", minimum: 1, maximum: 1024 },
    sandbox: {
      type: "object",
      additionalProperties: false,
      required: ["requested", "mode", "warning", "uid", "limits", "kill"],
      properties: {
        requested: { enum: ["auto", "bwrap", "none"] },
        mode: { enum: ["bwrap", "none"] },
        warning: { type: ["string", "null"], maxLength: 2000 },
        uid: { type: "integer", minimum: 0 },
        limits: { type: "object", additionalProperties: false, required: ["memory", "pids", "cpu"], properties: { memory: LIMIT, pids: LIMIT, cpu: LIMIT } },
        kill: TEXT(100),
      },
    },
    skills: { type: "array", items: SKILL_REPORT, maxItems: MAX_REPORTED_SKILLS },
  },
} as const satisfies JsonSchema;

/** `POST /api/v1/workers/{id}/skills`. */
export const WORKER_SKILLS_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["skills"],
  properties: { skills: WORKER_REGISTRATION_SCHEMA.properties.skills },
} as const satisfies JsonSchema;

/** `POST /api/v1/workers/{id}/claim`. */
export const CLAIM_REQUEST_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["capacity"],
  properties: { capacity: { type: "integer", minimum: 0, maximum: 1024 } },
} as const satisfies JsonSchema;

/** `POST /api/v1/workers/{id}/lease`. */
export const LEASE_REQUEST_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["running"],
  properties: { running: { type: "array", items: ID, maxItems: 1024, uniqueItems: true } },
} as const satisfies JsonSchema;

const EVENT = {
  type: "object",
  additionalProperties: false,
  required: ["seq", "at", "stream", "line"],
  properties: { seq: { type: "integer", minimum: 1 }, at: { type: "string", format: "date-time" }, stream: { enum: ["stderr", "system"] }, line: TEXT(70_000) },
} as const;

/** A slice of an events or finish report's `events`, checked a slice at a time (lib/server/http/request-body.ts parseListedBody). */
export const EVENT_SLICE_SCHEMA = { type: "array", items: EVENT } as const satisfies JsonSchema;
/** JSON values an events or finish report may hold: five per event and room for the rest. */
export const EVENTS_REPORT_MAX_NODES = MAX_EVENTS_PER_REPORT * 5 + 1_000;
/** Largest events report, in bytes; a finish report (which also carries the result) may be twice that. */
export const EVENTS_REPORT_MAX_BYTES = 16 * 1024 * 1024;

const CALL_SANDBOX = {
  type: "object",
  additionalProperties: false,
  required: ["mode", "warning", "limits"],
  properties: { mode: { enum: ["bwrap", "none"] }, warning: { type: ["string", "null"], maxLength: 2000 }, limits: { type: "array", items: TEXT(200), maxItems: 16 } },
} as const;

/** `POST /api/v1/workers/{id}/calls/{callId}/events`. */
export const EVENTS_REPORT_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["events"],
  properties: {
    events: { type: "array", items: EVENT, maxItems: MAX_EVENTS_PER_REPORT },
    spawned: {
      type: "object",
      additionalProperties: false,
      required: ["at", "pid", "pgid", "host", "bootId", "procStart"],
      properties: { at: { type: "string", format: "date-time" }, pid: { type: "integer", minimum: 1 }, pgid: { type: "integer", minimum: 1 }, host: TEXT(255), bootId: { type: ["string", "null"], maxLength: 100 }, procStart: { type: ["string", "null"], maxLength: 100 } },
    },
    sandbox: CALL_SANDBOX,
  },
} as const satisfies JsonSchema;

/** `POST /api/v1/workers/{id}/calls/{callId}/finish`. */
export const FINISH_REPORT_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["status", "exitCode", "result", "error", "durationMs", "stderrTruncated", "events"],
  properties: {
    status: { enum: ["succeeded", "failed", "timed_out", "cancelled", "interrupted", "expired"] },
    exitCode: { type: ["integer", "null"] },
    result: { type: ["string", "null"] },
    error: { type: ["string", "null"], maxLength: 20_000 },
    durationMs: { type: ["integer", "null"], minimum: 0 },
    stderrTruncated: { type: "boolean" },
    events: EVENTS_REPORT_SCHEMA.properties.events,
    digestMismatch: TEXT(20_000),
    spawned: EVENTS_REPORT_SCHEMA.properties.spawned,
    sandbox: CALL_SANDBOX,
  },
} as const satisfies JsonSchema;

/** `POST /api/v1/worker-tokens`. */
export const NEW_WORKER_TOKEN_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["name"],
  properties: { name: { type: "string", minLength: 1, maxLength: 100, pattern: "\\S" }, labels: { type: "array", items: LABEL, maxItems: 64, uniqueItems: true } },
} as const satisfies JsonSchema;

/** Every request body schema above, for the console to compile at start-up (precompileRequestSchemas). */
export const REQUEST_BODY_SCHEMAS: readonly JsonSchema[] = [
  WORKER_REGISTRATION_SCHEMA,
  WORKER_SKILLS_SCHEMA,
  CLAIM_REQUEST_SCHEMA,
  LEASE_REQUEST_SCHEMA,
  EVENTS_REPORT_SCHEMA,
  FINISH_REPORT_SCHEMA,
  NEW_WORKER_TOKEN_SCHEMA,
  SKILL_REPORT_SLICE_SCHEMA,
  EVENT_SLICE_SCHEMA,
];

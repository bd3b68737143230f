import { WEBHOOK_EVENTS } from "@/lib/types/webhook";
import type { JsonSchema } from "@/lib/types/skill";

/** Longest webhook address, in characters. */
export const WEBHOOK_URL_MAX_LENGTH = 2048;
/** Largest webhook request body, in bytes. */
export const WEBHOOK_BODY_MAX_BYTES = 16 * 1024;

const URL = { type: "string", minLength: 1, maxLength: WEBHOOK_URL_MAX_LENGTH } as const;
const EVENTS = { type: "array", minItems: 1, uniqueItems: true, items: { type: "string", enum: [...WEBHOOK_EVENTS] } } as const;
const FORMAT = { type: "string", enum: ["json", "slack"] } as const;

/** `POST /api/v1/webhooks` `{url, events, format?}` (DESIGN.md "Integrations"; `format` defaults to `json`). */
export const NEW_WEBHOOK_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["url", "events"],
  properties: { url: URL, events: EVENTS, format: FORMAT },
} as const satisfies JsonSchema;

/** `PATCH /api/v1/webhooks/{id}` `{url?, events?, format?, enabled?}`: at least one of them. */
export const WEBHOOK_CHANGE_SCHEMA = {
  type: "object",
  additionalProperties: false,
  minProperties: 1,
  properties: { url: URL, events: EVENTS, format: FORMAT, enabled: { type: "boolean" } },
} as const satisfies JsonSchema;

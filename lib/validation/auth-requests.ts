import type { JsonSchema } from "@/lib/types/skill";
import { ROLES } from "@/lib/types/identity";

/**
 * The request bodies of sign-in, API tokens and users (DESIGN.md "HTTP interface"). Each schema is the
 * one the route checks the body with (lib/server/http/request-body.ts checkRequestBody) and the one
 * `GET /api/v1/openapi.json` publishes. The verbs keep the rules a schema does not state as plainly
 * (an email's dotted domain, a trimmed name), with their own messages.
 */

const EMAIL = { type: "string", description: "an address with a dotted domain, e.g. admin@console.local; compared in lower case" } as const;
const ROLE = { enum: [...ROLES], description: "roles are cumulative: viewer < operator < approver < admin" } as const;

/** `POST /api/v1/auth/login` `{email, password}`. */
export const SIGN_IN_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["email", "password"],
  properties: { email: EMAIL, password: { type: "string", minLength: 1 } },
} as const satisfies JsonSchema;

/** `POST /api/v1/tokens` `{persona, name}`. */
export const NEW_API_TOKEN_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["persona", "name"],
  properties: {
    persona: { type: "string", pattern: "\\S", description: "the persona the token acts as" },
    name: { type: "string", pattern: "\\S", description: "at most 100 characters once trimmed" },
  },
} as const satisfies JsonSchema;

/** `POST /api/v1/users` `{email, password, role, name?}`. */
export const NEW_USER_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["email", "password", "role"],
  properties: { email: EMAIL, password: { type: "string", minLength: 12, maxLength: 256 }, role: ROLE, name: { type: "string", description: "shown name; default the email's local part" } },
} as const satisfies JsonSchema;

/** `PATCH /api/v1/users/{id}` `{role}`. */
export const USER_CHANGE_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["role"],
  properties: { role: ROLE },
} as const satisfies JsonSchema;

import type { JsonSchema } from "@/lib/types/skill";
import { PERMISSION_MODES } from "@/lib/types/persona";

/** The persona name rule: lower-case letters, digits, `_` and `-`, starting with a letter or digit, 1–64 characters. */
export const PERSONA_NAME_SOURCE = "^[a-z0-9][a-z0-9_-]{0,63}$";

/** Names that would collide with the static routes under `/api/v1/personas/` (`export`, `import`). */
export const RESERVED_PERSONA_NAMES: readonly string[] = ["export", "import"];

/** Most entries in each of `skills.allow`, `skills.deny` and `categories`. */
export const MAX_LIST_ENTRIES = 200;

/** Longest `description`, in characters. */
export const MAX_DESCRIPTION_LENGTH = 2000;

/** Longest single list entry, in characters. */
export const MAX_ENTRY_LENGTH = 200;

/** A list entry: non-empty, without leading or trailing spaces. */
const ENTRY = { type: "string", minLength: 1, maxLength: MAX_ENTRY_LENGTH, pattern: "^\\S(?:[\\s\\S]*\\S)?$" } as const;
const LIST = { type: "array", items: ENTRY, maxItems: MAX_LIST_ENTRIES } as const;

const PROPERTIES = {
  name: { type: "string", pattern: PERSONA_NAME_SOURCE, not: { enum: [...RESERVED_PERSONA_NAMES] } },
  description: { type: ["string", "null"], maxLength: MAX_DESCRIPTION_LENGTH, description: "default empty" },
  permission_mode: { enum: [...PERMISSION_MODES] },
  skills: {
    type: ["object", "null"],
    additionalProperties: false,
    properties: {
      allow: { ...LIST, type: ["array", "null"], description: "skill name globs or category:<glob>; no allow list calls nothing" },
      deny: { ...LIST, type: ["array", "null"], description: "skill name globs or category:<glob>; deny wins" },
    },
  },
  categories: { ...LIST, description: "the native skill categories it loads; absent = every category" },
  createdAt: { type: "string", description: "read-only; tolerated so GET → edit → PUT works" },
  updatedAt: { type: "string", description: "read-only; tolerated so GET → edit → PUT works" },
} as const;

/**
 * `POST /api/v1/personas`: a persona with the YAML field names (DESIGN.md "Policy"). The route checks
 * the body with it (lib/server/http/request-body.ts checkRequestBody) and `GET /api/v1/openapi.json`
 * publishes it; lib/server/personas/persona-input.ts names the refused field in its message and adds
 * the rules a schema cannot say (a negation `!glob`, an empty `category:`).
 */
export const NEW_PERSONA_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["name", "permission_mode"],
  properties: PROPERTIES,
} as const satisfies JsonSchema;

/** `PUT /api/v1/personas/{name}`: a whole persona; its `name`, if any, must be the path's. */
export const PERSONA_REPLACEMENT_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["permission_mode"],
  properties: PROPERTIES,
} as const satisfies JsonSchema;

/** `POST /api/v1/personas/import` (YAML): one persona or a list of them, each without the read-only times. */
export const PERSONA_IMPORT_SCHEMA = {
  oneOf: [
    { type: "array", items: { type: "object", additionalProperties: false, required: ["name", "permission_mode"], properties: { name: PROPERTIES.name, description: PROPERTIES.description, permission_mode: PROPERTIES.permission_mode, skills: PROPERTIES.skills, categories: PROPERTIES.categories } } },
    { type: "object", additionalProperties: false, required: ["name", "permission_mode"], properties: { name: PROPERTIES.name, description: PROPERTIES.description, permission_mode: PROPERTIES.permission_mode, skills: PROPERTIES.skills, categories: PROPERTIES.categories } },
  ],
} as const satisfies JsonSchema;

import type { JsonSchema } from "@/lib/types/skill";

/** A secret's name: an environment variable's name (letters, digits, `_`, not starting with a digit), at most 128 characters. */
export const SECRET_NAME_PATTERN = "^[A-Za-z_][A-Za-z0-9_]{0,127}$";
/** Longest secret value, in bytes of UTF-8. */
export const SECRET_VALUE_MAX_BYTES = 64 * 1024;
/**
 * Shortest secret value, in characters: a shorter one would mask every occurrence of itself in ordinary
 * text, and masking is an oracle (text an agent passes that equals the value comes back masked), so a
 * short value can be guessed in a few calls.
 */
export const SECRET_VALUE_MIN_LENGTH = 8;
/** Most skills one secret may be given to. */
export const SECRET_SKILLS_MAX = 1000;
/** Largest secret request body, in bytes: the value, its JSON escaping, and the skills. */
export const SECRET_BODY_MAX_BYTES = 512 * 1024;

const VALUE = { type: "string", minLength: 1, maxLength: SECRET_VALUE_MAX_BYTES } as const;
const SKILLS = { type: "array", items: { type: "string", minLength: 1, maxLength: 200 }, maxItems: SECRET_SKILLS_MAX, uniqueItems: true } as const;

/** `POST /api/v1/secrets` `{name, value, skills}` (DESIGN.md "Skill secrets"). */
export const NEW_SECRET_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["name", "value", "skills"],
  properties: { name: { type: "string", minLength: 1, maxLength: 128 }, value: VALUE, skills: SKILLS },
} as const satisfies JsonSchema;

/** `PUT /api/v1/secrets/{name}` `{value?, skills?}`: at least one of them. */
export const SECRET_CHANGE_SCHEMA = {
  type: "object",
  additionalProperties: false,
  minProperties: 1,
  properties: { value: VALUE, skills: SKILLS },
} as const satisfies JsonSchema;

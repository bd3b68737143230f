import type { JsonSchema, SkillClass } from "@/lib/types/skill";
import { SKILL_CLASSES } from "@/lib/types/skill";
import { compileSchema, formatAjvErrors, SchemaError } from "./ajv";

/** Pattern of a skill name (seed 000: lower_snake, `[a-z0-9_]+`); it becomes the LLM's function name. */
export const SKILL_NAME_PATTERN = "^[a-z0-9_]+$";

/** Longest skill name: LLM tool-calling APIs cap function names at 64 characters. */
export const SKILL_NAME_MAX_LENGTH = 64;

/** Pattern of an `env_allow` entry: a POSIX-style environment variable name. */
export const ENV_NAME_PATTERN = "^[A-Za-z_][A-Za-z0-9_]*$";

/** Largest `timeout_seconds` accepted (one day); larger values would overflow Node's timers. */
export const MAX_TIMEOUT_SECONDS = 86_400;

// Rejects strings made only of whitespace; its ajv message is rewritten to "must not be blank".
const NOT_BLANK = "\\S";

/** The JSON Schema of `skill.json` itself (seed 000 "Esquema del manifiesto", DESIGN.md "Subprocess skills"). */
export const MANIFEST_SCHEMA = {
  type: "object",
  required: ["name", "description", "entry"],
  properties: {
    name: { type: "string", pattern: SKILL_NAME_PATTERN, maxLength: SKILL_NAME_MAX_LENGTH },
    description: { type: "string", minLength: 1, pattern: NOT_BLANK },
    schema: { type: "object" },
    entry: { type: "string", minLength: 1, pattern: NOT_BLANK },
    env_allow: { type: "array", items: { type: "string", pattern: ENV_NAME_PATTERN } },
    timeout_seconds: { type: "integer", minimum: 0, maximum: MAX_TIMEOUT_SECONDS },
    class: { type: "string", enum: [...SKILL_CLASSES] },
    category: { type: "string", minLength: 1, pattern: NOT_BLANK },
    // Checked further by parseSandboxDeclaration (paths, keys), which also canonicalises it.
    sandbox: { type: "object" },
  },
} as const satisfies JsonSchema;

/** Top-level keys `skill.json` defines; any other key is kept out of the skill and reported as a warning. */
export const MANIFEST_FIELDS: readonly string[] = Object.keys(MANIFEST_SCHEMA.properties);

/** A `skill.json` that passed every check, with its fields as written (defaults are applied by the loader). */
export interface SkillManifest {
  name: string;
  description: string;
  entry: string;
  schema?: JsonSchema;
  env_allow?: string[];
  timeout_seconds?: number;
  class?: SkillClass;
  category?: string;
  /** As written; the loader parses it with parseSandboxDeclaration. */
  sandbox?: Record<string, unknown>;
}

/** Result of checking a parsed `skill.json`: the manifest and its warnings, or one readable message. */
export type ManifestCheck =
  | { ok: true; manifest: SkillManifest; warnings: string[] }
  | { ok: false; message: string; name: string | null };

function rootTypeError(schema: JsonSchema): string | null {
  const type = schema.type;
  if (type === undefined || type === "object") return null;
  if (Array.isArray(type) && type.length === 1 && type[0] === "object") return null;
  return `/schema/type must be "object" (args are always a JSON object), not ${JSON.stringify(type)}`;
}

/**
 * Checks a parsed `skill.json` value (seed 000 "Esquema del manifiesto"): the fields against
 * MANIFEST_SCHEMA, then `schema` must compile as a JSON Schema and describe an object (args are always
 * one). Takes any JSON value; never throws. Returns `{ ok: false, message, name }` with a message such
 * as `/name must match pattern "^[a-z0-9_]+$"` or `/schema is not a valid JSON Schema: /type must be
 * equal to one of the allowed values: …` (name = the `name` field when it is a string), or
 * `{ ok: true, manifest, warnings }` where warnings name ignored top-level keys and ajv's remarks on
 * the schema (e.g. an unknown `format`).
 */
export function checkManifest(value: unknown): ManifestCheck {
  const name = typeof value === "object" && value !== null && typeof (value as { name?: unknown }).name === "string"
    ? (value as { name: string }).name
    : null;
  const validate = compileSchema(MANIFEST_SCHEMA).validate;
  if (!validate(value)) {
    const errors = (validate.errors ?? []).map((error) =>
      error.keyword === "pattern" && error.params.pattern === NOT_BLANK ? { ...error, message: "must not be blank" } : error,
    );
    return { ok: false, message: formatAjvErrors(errors), name };
  }
  const manifest = value as SkillManifest & Record<string, unknown>;
  const warnings = Object.keys(manifest)
    .filter((key) => !MANIFEST_FIELDS.includes(key))
    .map((key) => `unknown field ${JSON.stringify(key)} in skill.json ignored`);
  if (manifest.schema !== undefined) {
    try {
      warnings.push(...compileSchema(manifest.schema).warnings.map((warning) => `schema: ${warning}`));
    } catch (error) {
      if (!(error instanceof SchemaError)) throw error;
      return { ok: false, message: `/schema is not a valid JSON Schema: ${error.message}`, name };
    }
    const typeError = rootTypeError(manifest.schema);
    if (typeError) return { ok: false, message: typeError, name };
  }
  return { ok: true, manifest, warnings };
}

/** The schema used when a manifest has none (seed 000: absent = empty object schema). A fresh object per call. */
export function emptyArgsSchema(): JsonSchema {
  return { type: "object", properties: {} };
}

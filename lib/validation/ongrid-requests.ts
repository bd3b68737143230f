import type { JsonSchema } from "@/lib/types/skill";
import type { JsonText } from "./json-text";

/*
 * Request bodies of the ongrid drop-in (DESIGN.md "Integrations"). ongrid's `executeReq`
 * (github.com/ongridio/ongrid at 2e688933ac33ba95b46c1ebca348c4d282234446,
 * internal/manager/server/skill/http.go) is `{edge_id: uint64, params: json.RawMessage}`.
 */

/** A worker name or label, as a call's `target` allows (lib/server/calls/call-request.ts). */
const TARGET_PATTERN = "^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$";

/**
 * `POST /api/v1/skills/{key}/execute` `{params?, edge_id?}`: `params` the args object (absent or null
 * = `{}`; the skill's schema checks it after), `edge_id` ongrid's edge number (a non-negative integer;
 * 0 = none, Go's zero value) or a worker name or label. Other fields are refused: a typo must not run
 * the skill with empty params.
 */
export const ONGRID_EXECUTE_SCHEMA = {
  type: "object",
  additionalProperties: false,
  properties: {
    params: { type: ["object", "null"] },
    edge_id: { oneOf: [{ type: "null" }, { type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER }, { type: "string", pattern: TARGET_PATTERN }] },
  },
} as const satisfies JsonSchema;

/** The execute body as parsed. */
export interface OngridExecuteBody {
  /** The args, kept as their text by the route (JsonText, parsed off the main thread), or parsed. */
  params?: Record<string, unknown> | JsonText | null;
  edge_id?: number | string | null;
}

/** Most ongrid persona files in one import. */
export const ONGRID_PERSONA_FILES_MAX = 100;
/** Largest ongrid persona file, in characters (a SKILL.md's limit: 1 MiB). */
export const ONGRID_PERSONA_FILE_MAX_LENGTH = 1024 * 1024;
/** Largest persona import body, in bytes. */
export const ONGRID_PERSONA_IMPORT_MAX_BYTES = 4 * 1024 * 1024;

/**
 * `POST /api/v1/personas/import/ongrid` `{files: [{name, text}], save}`: ongrid persona `.md` files
 * (agents/<name>.md) by file name and text; `save` false previews the mapping, true stores it.
 */
export const ONGRID_PERSONA_IMPORT_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["files", "save"],
  properties: {
    files: {
      type: "array",
      minItems: 1,
      maxItems: ONGRID_PERSONA_FILES_MAX,
      items: {
        type: "object",
        additionalProperties: false,
        required: ["name", "text"],
        properties: { name: { type: "string", minLength: 1, maxLength: 255 }, text: { type: "string", maxLength: ONGRID_PERSONA_FILE_MAX_LENGTH } },
      },
    },
    save: { type: "boolean" },
  },
} as const satisfies JsonSchema;

/** The persona import body as parsed. */
export interface OngridPersonaImportBody {
  files: Array<{ name: string; text: string }>;
  save: boolean;
}

import type { JsonSchema } from "@/lib/types/skill";

/** Largest staging request body that is JSON (a source's description), in bytes. */
export const PACK_REQUEST_MAX_BYTES = 16 * 1024;

const PLUGIN = { type: "string", minLength: 1, maxLength: 64 } as const;

/** A pack's source in a staging request (DESIGN.md "Skill packs"): a local folder or a git repository at a ref; `plugin` names a marketplace plugin. */
export const PACK_SOURCE_SCHEMA = {
  oneOf: [
    {
      type: "object",
      additionalProperties: false,
      required: ["type", "path"],
      properties: { type: { const: "folder" }, path: { type: "string", minLength: 1, maxLength: 4096 }, plugin: PLUGIN },
    },
    {
      type: "object",
      additionalProperties: false,
      required: ["type", "url", "ref"],
      properties: { type: { const: "git" }, url: { type: "string", minLength: 1, maxLength: 2048 }, ref: { type: "string", minLength: 1, maxLength: 255 }, plugin: PLUGIN },
    },
  ],
} as const satisfies JsonSchema;

/** `POST /api/v1/packs` with JSON `{source}`, and `POST /api/v1/packs/marketplace` `{source}`. */
export const PACK_STAGE_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["source"],
  properties: { source: PACK_SOURCE_SCHEMA },
} as const satisfies JsonSchema;

/** The staging request's body as parsed. */
export interface PackStageBody {
  source: { type: "folder"; path: string; plugin?: string } | { type: "git"; url: string; ref: string; plugin?: string };
}

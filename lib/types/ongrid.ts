/*
 * ongrid's own HTTP shapes, as its Go structs' JSON tags spell them (DESIGN.md "Integrations": ongrid
 * drop-in). Read from github.com/ongridio/ongrid at commit 2e688933ac33ba95b46c1ebca348c4d282234446:
 * - internal/manager/biz/skill/service.go: SkillSummary, SkillParamDef, ExecuteOutput
 * - internal/manager/server/skill/http.go: listResp, executeReq, errorBody, errCode
 * - internal/skill/types.go: Class, Scope, Param.Type
 * - internal/manager/biz/aiops/chatruntime/types.go + agent_parser.go: the persona (Agent) .md
 */
import type { Persona } from "./persona";
import type { SkillClass } from "./skill";

/** ongrid's `Param.Type` (internal/skill/types.go): `string | int | float | bool | duration | enum | array`. */
export type OngridParamType = "string" | "int" | "float" | "bool" | "duration" | "enum" | "array";

/**
 * ongrid's `SkillParamDef` (`name`, `type`; `required`, `default`, `desc`, `enum` are `omitempty`:
 * absent when false, nil, empty).
 */
export interface OngridSkillParam {
  name: string;
  type: OngridParamType;
  required?: true;
  default?: unknown;
  desc?: string;
  enum?: string[];
}

/**
 * ongrid's `SkillSummary` as the console fills it: `key, name, description, class, category, params`,
 * `scope: "manager"` (the console picks the worker, so no `edge_id` is needed), and
 * `inventory_only: true` when the skill's schema has a property `params` cannot express (ongrid's
 * SPA then offers no form). ongrid's other `omitempty` fields (`result_preview`, `source`) are absent.
 */
export interface OngridSkillSummary {
  key: string;
  name: string;
  description: string;
  class: SkillClass;
  scope: "manager";
  category: string;
  params: OngridSkillParam[];
  inventory_only?: true;
}

/** ongrid's `listResp` of `GET /v1/skills`: `{items, total}`. */
export interface OngridSkillList {
  items: OngridSkillSummary[];
  total: number;
}

/** ongrid's `ExecuteOutput` (`result`, `error`, both `omitempty`): one of them per answer. */
export type OngridExecuteOutput = { result: unknown } | { error: string };

/** The codes of ongrid's skill handler's `errCode`. */
export type OngridErrorCode = "unauthorized" | "forbidden" | "not-found" | "invalid" | "internal";

/**
 * ongrid's `errorBody` `{error, code}`, with what the console adds (unknown to ongrid's clients, which
 * read only `error` and `code`): `details` (e.g. the ajv errors of invalid params), and for a call that
 * waits for a person, `call_id` and `status` (`awaiting_confirmation` / `awaiting_approval`) to follow it.
 */
export interface OngridErrorBody {
  error: string;
  code: OngridErrorCode;
  details?: unknown;
  call_id?: string;
  status?: "awaiting_confirmation" | "awaiting_approval";
}

/** One ongrid persona `.md` file as sent to the import: its file name and text. */
export interface OngridPersonaFile {
  name: string;
  text: string;
}

/**
 * What the import makes of one ongrid persona file: the persona it maps to, whether it replaces a
 * stored persona of that name, and notes on what was not carried over (and why that narrows, never
 * widens, what the persona may call).
 */
export interface OngridPersonaImport {
  file: string;
  persona: Omit<Persona, "createdAt" | "updatedAt">;
  replaces: boolean;
  notes: string[];
}

/** `POST /api/v1/personas/import/ongrid` answer: the mapped personas; after saving, which names were created and replaced. */
export interface OngridPersonaImportResult {
  saved: boolean;
  personas: OngridPersonaImport[];
  created: string[];
  replaced: string[];
}

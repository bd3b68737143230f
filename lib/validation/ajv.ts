import Ajv, { type ErrorObject, type ValidateFunction } from "ajv";
import type AjvCore from "ajv/dist/core";
import Ajv2019 from "ajv/dist/2019";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import type { JsonSchema } from "@/lib/types/skill";
import { AJV_OPTIONS } from "./ajv-options";

/** One ajv validation error, as returned in `invalid_args` details (DESIGN.md "HTTP interface"). */
export type AjvError = ErrorObject;

/** Outcome of validating a call's args against its skill's schema. */
export type ArgsValidation = { ok: true } | { ok: false; errors: AjvError[] };

/** JSON Schema dialects a manifest's `schema` may declare with `$schema`; draft-07 when it declares none. */
export type SchemaDialect = "draft-07" | "2019-09" | "2020-12";

const DIALECT_OF_META: Record<string, SchemaDialect> = {
  "http://json-schema.org/draft-07/schema": "draft-07",
  "https://json-schema.org/draft/2019-09/schema": "2019-09",
  "https://json-schema.org/draft/2020-12/schema": "2020-12",
};

/** A user schema that cannot be used: not a valid JSON Schema, an unsupported dialect, or async. */
export class SchemaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SchemaError";
  }
}

/** A compiled user schema and the non-fatal remarks ajv made while compiling it. */
export interface CompiledSchema {
  validate: ValidateFunction;
  /** E.g. `unknown format "semver" ignored in schema at path "#/properties/v"`. */
  warnings: string[];
}

// Warnings ajv logs during a compile are collected here; compile is synchronous, so one slot suffices.
let warningSink: string[] | null = null;

interface CompileCaches {
  instances: Map<SchemaDialect, { ajv: AjvCore; compiles: number }>;
  byObject: WeakMap<object, CompiledSchema>;
  byText: Map<string, CompiledSchema>;
}

// On globalThis: Next.js bundles this module once per route graph (start-up scan, reload route, calls
// route), and each copy would otherwise compile every schema again.
const CACHES_KEY = Symbol.for("skill-console.ajv-caches");
const caches = ((globalThis as unknown as { [CACHES_KEY]?: CompileCaches })[CACHES_KEY] ??= {
  instances: new Map(),
  byObject: new WeakMap(),
  byText: new Map(),
});
const instances = caches.instances;

/**
 * Compiles one shared instance serves before it is replaced by a fresh one. Ajv keeps every compiled
 * schema and validator in its code-generation scope for the life of the instance (removeSchema does
 * not release them), so a console that reloads 10,000 skills would otherwise grow by ~125 MiB per
 * reload. Validators compiled earlier keep working: each holds on to the scope it was made in.
 */
export const COMPILES_PER_INSTANCE = 500;

export { AJV_OPTIONS } from "./ajv-options";

/**
 * Creates a new Ajv instance configured the project's way: AJV_OPTIONS, formats from ajv-formats in
 * full mode (email, uri, date-time, ipv4, …), and a logger that turns ajv's warnings into compile
 * warnings. Takes the dialect (default draft-07); returns the instance. Prefer `sharedAjv` — this
 * exists so the configuration is spelled in one place (STYLE.md "lib/validation/: one Ajv instance").
 */
export function createAjv(dialect: SchemaDialect = "draft-07"): AjvCore {
  const options = {
    ...AJV_OPTIONS,
    logger: {
      log: () => undefined,
      warn: (...parts: unknown[]) => warningSink?.push(parts.map(String).join(" ")),
      error: (...parts: unknown[]) => console.error("ajv:", ...parts),
    },
  };
  const ajv = dialect === "2020-12" ? new Ajv2020(options) : dialect === "2019-09" ? new Ajv2019(options) : new Ajv(options);
  addFormats(ajv);
  return ajv;
}

/**
 * The process-wide Ajv instance of a dialect, created on first use and replaced by a fresh one after
 * COMPILES_PER_INSTANCE compiles (see there). Returns an instance configured by createAjv.
 */
export function sharedAjv(dialect: SchemaDialect = "draft-07"): AjvCore {
  let entry = instances.get(dialect);
  if (!entry) {
    entry = { ajv: createAjv(dialect), compiles: 0 };
    instances.set(dialect, entry);
  }
  return entry.ajv;
}

/** Counts one compile on the shared instance of `dialect`, retiring it after COMPILES_PER_INSTANCE. */
function countCompile(dialect: SchemaDialect): void {
  const entry = instances.get(dialect);
  if (entry && ++entry.compiles >= COMPILES_PER_INSTANCE) instances.delete(dialect);
}

/**
 * Picks the dialect a schema declares with `$schema` (a trailing `#` is ignored).
 * Throws SchemaError naming the value when it is not draft-07, 2019-09 or 2020-12.
 */
export function dialectOf(schema: JsonSchema): SchemaDialect {
  const declared = schema.$schema;
  if (declared === undefined) return "draft-07";
  const dialect = typeof declared === "string" ? DIALECT_OF_META[declared.replace(/#$/, "")] : undefined;
  if (!dialect) throw new SchemaError(`unsupported $schema ${JSON.stringify(declared)} (use draft-07, 2019-09 or 2020-12)`);
  return dialect;
}

/**
 * Turns ajv errors into one readable line: `<instancePath> <message>` joined by "; ", e.g.
 * `/name must match pattern "^[a-z0-9_]+$"`; enum errors list the allowed values and
 * additionalProperties errors name the extra property; summary errors of
 * `anyOf`/`oneOf` are left out because their branches already say what is wrong. `prefix` is put in
 * front of every instance path (e.g. "/schema"). At most MAX_FORMATTED_ERRORS distinct lines, then
 * `; and N more`. Linear in the number of errors. Returns "" for no errors.
 */
export function formatAjvErrors(errors: readonly AjvError[] | null | undefined, prefix = ""): string {
  // A Set, not a list search: a body with 100,000 unknown keys has as many errors (issue 10: the
  // quadratic search froze the console for minutes). At most MAX_FORMATTED_ERRORS lines are written.
  const lines = new Set<string>();
  let more = 0;
  for (const error of errors ?? []) {
    if (error.keyword === "anyOf" || error.keyword === "oneOf") continue;
    let message = error.message ?? `fails ${error.keyword}`;
    if (error.keyword === "additionalProperties" && typeof error.params.additionalProperty === "string") {
      message += `: ${error.params.additionalProperty}`;
    }
    if (error.keyword === "enum" && Array.isArray(error.params.allowedValues)) {
      message += `: ${error.params.allowedValues.map((value: unknown) => (typeof value === "string" ? value : JSON.stringify(value))).join(", ")}`;
    }
    const where = `${prefix}${error.instancePath}`;
    const line = where === "" ? message : `${where} ${message}`;
    if (lines.size < MAX_FORMATTED_ERRORS) lines.add(line);
    else if (!lines.has(line)) more++;
  }
  return [...lines].join("; ") + (more > 0 ? `; and ${more} more` : "");
}

/** Most distinct ajv error lines formatAjvErrors writes (the rest are counted). */
export const MAX_FORMATTED_ERRORS = 20;

/** Most ajv errors a request's refusal carries in `details`. */
export const MAX_ERROR_DETAILS = 100;

const compiled = caches.byObject;

/** Compiled schemas by dialect and JSON text, newest last; bounded by MAX_COMPILED_BY_TEXT. */
const compiledByText = caches.byText;

/**
 * Most compiled schemas remembered by their text. A reload re-reads every manifest into new objects;
 * without this, each reload of an unchanged tree of 10,000 skills compiled all 10,000 schemas again
 * (~1 ms each, the largest share of a scan).
 */
export const MAX_COMPILED_BY_TEXT = 20_000;

/** Keywords that annotate a schema and never change what it accepts (with ajv's useDefaults off, `default` too). */
const ANNOTATION_KEYWORDS = new Set(["title", "description", "$comment", "examples", "default", "readOnly", "writeOnly", "deprecated"]);
/** Keywords whose value maps names (property names, definition names) to schemas. */
const SCHEMA_MAP_KEYWORDS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);
/** Keywords whose value is a schema, or (`items` in draft-07, the combinators) an array of schemas. */
const SCHEMA_KEYWORDS = new Set(["items", "additionalItems", "additionalProperties", "contains", "propertyNames", "if", "then", "else", "not", "unevaluatedItems", "unevaluatedProperties", "contentSchema", "allOf", "anyOf", "oneOf", "prefixItems"]);

/**
 * `schema` without its annotations (ANNOTATION_KEYWORDS), walked through the keywords that hold
 * schemas only — a property named `description` stays, as do `enum` and `const` values — for the
 * compile cache's key: skills whose schemas differ only in their descriptions (a fleet of 10,000 whose
 * argument shapes repeat) share one validator, so a cold start compiles each shape once (~0.5 ms each).
 * A schema object holding a `$ref` keeps its annotations: ajv may warn about a `$ref`'s siblings. Pure.
 */
function validationShape(schema: unknown): unknown {
  if (!isPlainObject(schema)) return schema;
  const keepAnnotations = "$ref" in schema || "$dynamicRef" in schema || "$recursiveRef" in schema;
  const shape: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (!keepAnnotations && ANNOTATION_KEYWORDS.has(key)) continue;
    if (SCHEMA_MAP_KEYWORDS.has(key) && isPlainObject(value)) {
      shape[key] = Object.fromEntries(Object.entries(value).map(([name, inner]) => [name, validationShape(inner)]));
    } else if (key === "dependencies" && isPlainObject(value)) {
      shape[key] = Object.fromEntries(Object.entries(value).map(([name, inner]) => [name, Array.isArray(inner) ? inner : validationShape(inner)]));
    } else if (SCHEMA_KEYWORDS.has(key)) {
      shape[key] = Array.isArray(value) ? value.map(validationShape) : validationShape(value);
    } else {
      shape[key] = value;
    }
  }
  return shape;
}

/**
 * Compiles a user schema (a manifest's `schema`) once and caches the result keyed by that schema
 * object and by its dialect and JSON text without annotations (validationShape: a validator depends on
 * nothing else, so skills with schemas that differ only in descriptions, and one skill across reloads,
 * share it). The schema is removed from ajv's registry after compiling
 * so `$id`s of different skills (or of one skill across reloads) never collide or resolve into each
 * other. Throws SchemaError when the schema is not a valid JSON Schema (`{"type":"strng"}`,
 * `{"properties":5}`, a bad regex, an unresolvable `$ref`), declares an unsupported `$schema`, or is
 * async (`$async`, whose validator would return a promise). DESIGN.md "Subprocess skills": a `schema`
 * that is not a valid JSON Schema is a manifest error.
 */
export function compileSchema(schema: JsonSchema): CompiledSchema {
  const hit = compiled.get(schema);
  if (hit) return hit;
  const dialect = dialectOf(schema);
  const text = `${dialect}\n${JSON.stringify(validationShape(schema))}`;
  const same = compiledByText.get(text);
  if (same) {
    compiled.set(schema, same);
    return same;
  }
  const ajv = sharedAjv(dialect);
  countCompile(dialect);
  if (!ajv.validateSchema(schema)) throw new SchemaError(formatAjvErrors(ajv.errors));
  const knownRefs = new Set(Object.keys(ajv.refs));
  const warnings: string[] = [];
  warningSink = warnings;
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(schema);
  } catch (error) {
    throw new SchemaError(error instanceof Error ? error.message : String(error));
  } finally {
    warningSink = null;
    ajv.removeSchema(schema);
    for (const ref of Object.keys(ajv.refs)) if (!knownRefs.has(ref)) delete ajv.refs[ref];
  }
  if ((validate as { $async?: unknown }).$async) throw new SchemaError("async schemas ($async) are not supported");
  const result = { validate, warnings: [...new Set(warnings)] };
  compiled.set(schema, result);
  compiledByText.set(text, result);
  if (compiledByText.size > MAX_COMPILED_BY_TEXT) compiledByText.delete(compiledByText.keys().next().value!);
  return result;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Validates a call's args against a skill's schema (DESIGN.md wire protocol: validated before
 * spawning; invalid args never start a process). Args must be a JSON object whatever the schema says.
 * Formats (email, uri, date-time, ipv4, …) are checked; defaults are NOT filled in, so the args the
 * child receives (and an approval is bound to) are exactly the ones sent.
 * Returns `{ ok: true }` or `{ ok: false, errors }` (a copy of ajv's errors, all of them).
 * Throws SchemaError only if the schema itself is unusable (never for a registered skill, whose
 * schema was compiled by the loader).
 */
export function validateArgs(schema: JsonSchema, args: unknown): ArgsValidation {
  if (!isPlainObject(args)) {
    return {
      ok: false,
      errors: [{ instancePath: "", schemaPath: "#/type", keyword: "type", params: { type: "object" }, message: "must be object" }],
    };
  }
  const { validate } = compileSchema(schema);
  if (validate(args)) return { ok: true };
  return { ok: false, errors: (validate.errors ?? []).slice(0, MAX_ERROR_DETAILS) };
}

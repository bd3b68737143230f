import { getDefaultFormState, type RJSFSchema } from "@rjsf/utils";
import type { JsonSchema } from "@/lib/types/skill";
import { argsValidator } from "./validator";

/** Keywords that only apply to one JSON type: a union type's branch keeps the ones of its own type. */
const TYPE_KEYWORDS: Record<string, readonly string[]> = {
  string: ["minLength", "maxLength", "pattern", "format", "contentEncoding", "contentMediaType"],
  number: ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"],
  integer: ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"],
  array: ["items", "prefixItems", "additionalItems", "minItems", "maxItems", "uniqueItems", "contains"],
  object: ["properties", "required", "additionalProperties", "patternProperties", "minProperties", "maxProperties", "propertyNames"],
};
const TYPED_KEYWORDS = new Set(Object.values(TYPE_KEYWORDS).flat());

/** Schemas the form cannot draw, with rjsf's reason (see toFormSchema). */
const unrenderable = new WeakMap<RJSFSchema, string>();

/**
 * A union type such as `["string", "array"]` or `["string", "integer", "null"]` as an `anyOf` of one
 * branch per type (rjsf draws only the first type of a union), `null` as a `const: null` branch;
 * `[T, "null"]` stays as is, rjsf draws it as T and the field offers "Set null".
 */
function expandTypeUnion(schema: Record<string, unknown>): Record<string, unknown> {
  const types = schema.type;
  if (!Array.isArray(types) || types.filter((type) => type !== "null").length < 2 || schema.anyOf || schema.oneOf) return schema;
  const shared: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) if (key !== "type" && !TYPED_KEYWORDS.has(key)) shared[key] = value;
  const branches = (types as string[]).map((type) => {
    // rjsf draws nothing for a `type: "null"` option, so choosing it would leave the field absent; a
    // `const: null` option is drawn by rjsf's NullField, which sets the field to null.
    if (type === "null") return { const: null, title: "null" };
    const branch: Record<string, unknown> = { type, title: type };
    for (const key of TYPE_KEYWORDS[type] ?? []) if (key in schema) branch[key] = schema[key];
    return branch;
  });
  return { ...shared, anyOf: branches };
}

/** Applies expandTypeUnion to every subschema (properties, items, $defs, combinators…). */
function normalize(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(normalize);
  if (typeof node !== "object" || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    // `enum`, `const`, `default` and `examples` hold data, not subschemas.
    out[key] = key === "enum" || key === "const" || key === "default" || key === "examples" ? value : normalize(value);
  }
  return expandTypeUnion(withEmptyStringItems(out));
}

/**
 * An array of plain strings whose new items start as `""`: an added item is an empty text box, and
 * what the box shows is what is sent (rjsf would add `undefined`, sent as null). Only `items` schemas
 * of type "string" with no `default`, `enum` or `const` get `default: ""`; validation is unchanged.
 */
function withEmptyStringItems(schema: Record<string, unknown>): Record<string, unknown> {
  const items = schema.items;
  if (typeof items !== "object" || items === null || Array.isArray(items)) return schema;
  const itemSchema = items as Record<string, unknown>;
  if (itemSchema.type !== "string" || "default" in itemSchema || "enum" in itemSchema || "const" in itemSchema) return schema;
  return { ...schema, items: { ...itemSchema, default: "" } };
}

/**
 * The schema the args form renders: the skill's schema, made an object schema when it declares no
 * type (an absent schema means the empty object schema, DESIGN.md "Subprocess skills"), with union
 * types spelled as `anyOf` and new string array items starting as `""` (an equivalent schema, so
 * validation is unchanged). When rjsf cannot even
 * compute the schema's defaults (e.g. a `$ref` by `$id` it cannot resolve), returns an open object
 * schema instead and remembers why: SchemaForm then shows the Raw JSON editor (see unrenderableReason).
 */
export function toFormSchema(schema: JsonSchema | null | undefined): RJSFSchema {
  let base = normalize(schema ?? {}) as RJSFSchema;
  if (base.type === undefined && base.$ref === undefined && base.oneOf === undefined && base.anyOf === undefined && base.allOf === undefined) {
    base = { ...base, type: "object" };
  }
  try {
    getDefaultFormState(argsValidator, base, {}, base);
    return base;
  } catch (error) {
    const standIn: RJSFSchema = { type: "object", additionalProperties: true };
    unrenderable.set(standIn, error instanceof Error ? error.message : String(error));
    return standIn;
  }
}

/** Why the form cannot draw `schema` (a stand-in made by toFormSchema), or null when it can. */
export function unrenderableReason(schema: RJSFSchema): string | null {
  return unrenderable.get(schema) ?? null;
}

/** True when the (form) schema is an object that declares no property: there is nothing to fill in. */
export function hasNoFields(schema: RJSFSchema): boolean {
  if (unrenderable.has(schema)) return false;
  return schema.type === "object" && (!schema.properties || Object.keys(schema.properties).length === 0) && !schema.additionalProperties && !schema.$ref;
}

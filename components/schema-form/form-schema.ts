import { getDefaultFormState, type Experimental_DefaultFormStateBehavior, type RJSFSchema, type ValidatorType } from "@rjsf/utils";
import type { JsonSchema } from "@/lib/types/skill";
import { isSchemaNode, resolveLocalRef } from "./chosen-branches";
import { describeConstraints } from "./constraint-hint";
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
  return expandTypeUnion(withMapValueStart(withEmptyStringItems(withEnumOfOneAsConst(out))));
}

/** What a new value of each JSON type starts as in a map: empty, zero or false — never a placeholder that would be sent. */
const MAP_VALUE_STARTS: Readonly<Record<string, unknown>> = { string: "", integer: 0, number: 0, boolean: false, array: [], object: {} };

/**
 * An open object (`additionalProperties` with a typed value schema) whose new entries start as that
 * type's empty value (MAP_VALUE_STARTS; the first non-null type of a union): rjsf starts every value
 * it has no case for — an integer, a nullable string — as the text "New Value", which was sent as typed.
 * Only value schemas with no `default`, `const`, `$ref` or choice of options get a `default`;
 * validation is unchanged.
 */
function withMapValueStart(schema: Record<string, unknown>): Record<string, unknown> {
  const value = schema.additionalProperties;
  if (typeof value !== "object" || value === null || Array.isArray(value)) return schema;
  const valueSchema = value as Record<string, unknown>;
  if (["default", "const", "$ref", "oneOf", "anyOf", "enum"].some((key) => key in valueSchema)) return schema;
  const type = Array.isArray(valueSchema.type) ? (valueSchema.type as unknown[]).find((candidate) => candidate !== "null") : valueSchema.type;
  if (typeof type !== "string" || !(type in MAP_VALUE_STARTS)) return schema;
  return { ...schema, additionalProperties: { ...valueSchema, default: MAP_VALUE_STARTS[type] } };
}

/**
 * An `enum` of one value also spelled as its `const` (the same constraint), so rjsf fills it in like any
 * `const` (new array items, a union's chosen branch) and the form shows it as a fixed value.
 */
function withEnumOfOneAsConst(schema: Record<string, unknown>): Record<string, unknown> {
  return Array.isArray(schema.enum) && schema.enum.length === 1 && !("const" in schema) ? { ...schema, const: schema.enum[0] } : schema;
}

/**
 * An array of plain strings whose new items start as `""`: an added item is an empty text box, and
 * what the box shows is what is sent (rjsf would add `undefined`, sent as null). Only `items` schemas
 * of type "string" with no `default`, `enum`, `const` or choice of options get `default: ""`;
 * validation is unchanged.
 */
function withEmptyStringItems(schema: Record<string, unknown>): Record<string, unknown> {
  const items = schema.items;
  if (typeof items !== "object" || items === null || Array.isArray(items)) return schema;
  const itemSchema = items as Record<string, unknown>;
  if (itemSchema.type !== "string" || ["default", "enum", "const", "oneOf", "anyOf"].some((key) => key in itemSchema)) return schema;
  return { ...schema, items: { ...itemSchema, default: "" } };
}

/**
 * The schema the args form renders: the skill's schema, made an object schema when it declares no
 * type (an absent schema means the empty object schema, DESIGN.md "Subprocess skills"), with union
 * types spelled as `anyOf`, new string array items starting as `""` and every anyOf/oneOf option
 * titled (see optionLabel) — an equivalent schema, so validation is unchanged. When rjsf cannot even
 * compute the schema's defaults (e.g. a `$ref` by `$id` it cannot resolve), returns an open object
 * schema instead and remembers why: SchemaForm then shows the Raw JSON editor (see unrenderableReason).
 */
export function toFormSchema(schema: JsonSchema | null | undefined): RJSFSchema {
  const normalized = normalize(schema ?? {});
  let base = withOptionTitles(normalized, normalized) as RJSFSchema;
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

/** A `const` value as an option label or a fixed field shows it: a string as is, anything else as JSON. */
export function formatConstValue(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** The one value a schema allows (`const`, or an `enum` of one), or undefined when it allows more. */
export function fixedValueOf(schema: unknown): { value: unknown } | undefined {
  if (!isSchemaNode(schema)) return undefined;
  if ("const" in schema) return { value: schema.const };
  if (Array.isArray(schema.enum) && schema.enum.length === 1) return { value: schema.enum[0] };
  return undefined;
}

const LABEL_LENGTH = 60;

function shorten(text: string): string {
  const line = text.split("\n")[0]!.trim();
  return line.length > LABEL_LENGTH ? `${line.slice(0, LABEL_LENGTH - 1)}…` : line;
}

/**
 * The label of one anyOf/oneOf option in its picker (issue 14 point 4): its `title` (a `$ref`'d
 * option's target's title), else its `const` (or enum of one), else a description of the branch: the
 * `const` of a property that tells the branches apart ("kind: disk"), its `description`, the name of
 * the definition it refers to, or its type and constraints ("object with host, port", "integer · 1–9").
 */
export function optionLabel(option: unknown, root: unknown): string {
  if (!isSchemaNode(option)) return option === false ? "nothing" : "any value";
  let node: Record<string, unknown> = option;
  let refName: string | null = null;
  if (typeof option.$ref === "string") {
    const target = resolveLocalRef(root, option.$ref);
    refName = option.$ref.split("/").pop() || null;
    if (isSchemaNode(target)) node = { ...target, ...option };
  }
  if (typeof node.title === "string" && node.title.trim() !== "") return node.title;
  const fixed = fixedValueOf(node);
  if (fixed) return formatConstValue(fixed.value);
  const properties = isSchemaNode(node.properties) ? node.properties : {};
  const required = Array.isArray(node.required) ? (node.required as string[]) : [];
  const discriminators = Object.entries(properties)
    .map(([key, property]) => ({ key, fixed: fixedValueOf(resolvedNode(property, root)) }))
    .filter((entry) => entry.fixed !== undefined)
    .sort((a, b) => Number(required.includes(b.key)) - Number(required.includes(a.key)));
  const discriminator = discriminators[0];
  if (discriminator) return `${discriminator.key}: ${formatConstValue(discriminator.fixed!.value)}`;
  if (typeof node.description === "string" && node.description.trim() !== "") return shorten(node.description);
  if (refName) return refName;
  const keys = Object.keys(properties);
  if (keys.length > 0) return `object with ${keys.slice(0, 3).join(", ")}${keys.length > 3 ? ", …" : ""}`;
  return describeConstraints(node as RJSFSchema) || "any value";
}

function resolvedNode(schema: unknown, root: unknown): unknown {
  return isSchemaNode(schema) && typeof schema.$ref === "string" ? { ...(resolveLocalRef(root, schema.$ref) as object), ...schema } : schema;
}

/** Titles every untitled anyOf/oneOf option (optionLabel), numbering labels two options would share. */
function withOptionTitles(node: unknown, root: unknown): unknown {
  if (Array.isArray(node)) return node.map((child) => withOptionTitles(child, root));
  if (!isSchemaNode(node)) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    out[key] = key === "enum" || key === "const" || key === "default" || key === "examples" ? value : withOptionTitles(value, root);
  }
  for (const key of ["anyOf", "oneOf"] as const) {
    const options = out[key];
    if (!Array.isArray(options)) continue;
    const labels = options.map((option) => optionLabel(option, root));
    out[key] = options.map((option, index) => {
      if (!isSchemaNode(option) || (typeof option.title === "string" && option.title.trim() !== "")) return option;
      const label = labels[index]!;
      const shared = labels.filter((other) => other === label).length > 1;
      return { ...option, title: shared ? `${label} (option ${index + 1})` : label };
    });
  }
  return out;
}

/** How a new array item is filled: every default of its schema (nested ones too), and its `const`s. */
const NEW_ITEM_DEFAULTS: Experimental_DefaultFormStateBehavior = {
  emptyObjectFields: "populateAllDefaults",
  constAsDefaults: "skipOneOf",
  mergeDefaultsIntoFormData: "useFormDataIfPresent",
};

/**
 * The value of an item added to an array whose schema is `arraySchema` (issue 14 point 4): the item
 * schema's defaults — `items`, or `additionalItems` after a tuple — with `$ref`s resolved against
 * `root`, nested objects' defaults and `const`s filled in (newValueOf); `undefined` when it declares
 * none. The form itself fills no defaults once drawn (see SchemaForm), so adding an item goes through
 * this (ArrayFieldWithItemDefaults).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any form data type: only defaults are computed
export function newArrayItem(validator: ValidatorType<any, RJSFSchema, any>, arraySchema: RJSFSchema, root: RJSFSchema): unknown {
  const itemSchema = Array.isArray(arraySchema.items) ? arraySchema.additionalItems : arraySchema.items;
  return isSchemaNode(itemSchema) ? newValueOf(validator, itemSchema as RJSFSchema, root) : undefined;
}

/**
 * A fresh value for `schema` (an array item, a map value): its defaults with `$ref`s resolved against
 * `root`, nested objects' defaults and `const`s filled in; `undefined` when it declares none.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any form data type: only defaults are computed
export function newValueOf(validator: ValidatorType<any, RJSFSchema, any>, schema: RJSFSchema, root: RJSFSchema): unknown {
  return getDefaultFormState(validator, schema, undefined, root, false, NEW_ITEM_DEFAULTS);
}

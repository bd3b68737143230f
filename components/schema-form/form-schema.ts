import type { RJSFSchema } from "@rjsf/utils";
import type { JsonSchema } from "@/lib/types/skill";

/**
 * The schema the args form renders: the skill's schema, made an object schema when it declares no
 * type (an absent schema means the empty object schema, DESIGN.md "Subprocess skills").
 */
export function toFormSchema(schema: JsonSchema | null | undefined): RJSFSchema {
  const base = (schema ?? {}) as RJSFSchema;
  if (base.type === undefined && base.$ref === undefined && base.oneOf === undefined && base.anyOf === undefined && base.allOf === undefined) {
    return { ...base, type: "object" };
  }
  return base;
}

/** True when the (form) schema is an object that declares no property: there is nothing to fill in. */
export function hasNoFields(schema: RJSFSchema): boolean {
  return schema.type === "object" && (!schema.properties || Object.keys(schema.properties).length === 0) && !schema.additionalProperties && !schema.$ref;
}

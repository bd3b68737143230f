import { getDefaultRegistry } from "@rjsf/core";
import type { FieldProps, Registry, SchemaUtilsType } from "@rjsf/utils";
import { useMemo } from "react";
import { newValueOf } from "./form-schema";

const RjsfArrayField = getDefaultRegistry().fields.ArrayField!;

/**
 * `registry` whose schemaUtils answer a request for a fresh value (a schema alone: no form data, no
 * flag — how rjsf asks for a new array item or map value) with every default of the schema (newValueOf)
 * instead of the form's own behaviour, which fills none (see SchemaForm). Every other request goes to
 * the form's schemaUtils unchanged.
 */
function withNewValueDefaults(registry: Registry): Registry {
  const base = registry.schemaUtils;
  const schemaUtils = Object.create(base) as SchemaUtilsType;
  schemaUtils.getDefaultFormState = (schema, formData, includeUndefinedValues) =>
    formData === undefined && includeUndefinedValues === undefined ? newValueOf(base.getValidator(), schema, registry.rootSchema) : base.getDefaultFormState(schema, formData, includeUndefinedValues);
  return { ...registry, schemaUtils };
}

/**
 * rjsf's ArrayField, whose Add item gives the new item its item schema's defaults (`$ref` resolved,
 * nested defaults and consts; issue 14 point 4). rjsf's own add path is kept, with its item keys and
 * its handling of quick successive clicks.
 */
export function ArrayFieldWithItemDefaults(props: FieldProps) {
  const registry = useMemo(() => withNewValueDefaults(props.registry), [props.registry]);
  return <RjsfArrayField {...props} registry={registry} />;
}

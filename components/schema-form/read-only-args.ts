import type { RJSFSchema, ValidatorType } from "@rjsf/utils";
import { applicableSchemas, itemSchemas, propertySchemas, type ChosenOptions } from "./chosen-branches";

/** Any rjsf validator, whatever its form data type (only isValid and option matching are used). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Validator = ValidatorType<any, RJSFSchema, any>;
type Path = readonly (string | number)[];

const DROP = Symbol("drop");

/** True when stripping turned a non-empty object into an empty one. */
function isEmptied(before: unknown, after: unknown): boolean {
  const isObject = (value: unknown) => typeof value === "object" && value !== null && !Array.isArray(value);
  return isObject(before) && isObject(after) && Object.keys(before as object).length > 0 && Object.keys(after as object).length === 0;
}

function strip(validator: Validator, root: RJSFSchema, schemas: readonly unknown[], data: unknown, path: Path, chosen: ChosenOptions): unknown {
  const applicable = applicableSchemas(validator, root, schemas, data, path, chosen);
  if (applicable.some((schema) => schema.readOnly === true)) return DROP;
  if (Array.isArray(data)) {
    const items: unknown[] = [];
    data.forEach((item, index) => {
      const kept = strip(validator, root, applicable.flatMap((schema) => itemSchemas(schema, index)), item, [...path, index], chosen);
      if (kept !== DROP) items.push(kept);
    });
    return items;
  }
  if (typeof data === "object" && data !== null) {
    const out: Record<string, unknown> = {};
    const required = new Set(applicable.flatMap((schema) => (Array.isArray(schema.required) ? schema.required : [])));
    for (const [key, value] of Object.entries(data)) {
      const kept = strip(validator, root, applicable.flatMap((schema) => propertySchemas(schema, key)), value, [...path, key], chosen);
      // An optional object that held only read-only values was filled by the form, not by the person.
      if (kept === DROP || (isEmptied(value, kept) && !required.has(key))) continue;
      out[key] = kept;
    }
    return out;
  }
  return data;
}

/**
 * The args the form sends: `args` without the values of `readOnly` fields, at any depth — inside
 * nested objects, array items, map values, `$ref`'d definitions, `allOf` members, the shown branch of
 * each anyOf/oneOf (`chosen`, see chosenOptionIndex) and the taken branch of an `if`. A read-only field
 * shows its value in the form but is not sent (issue 14 point 4); an array item whose schema is
 * read-only is left out of its array, and an optional object left empty by this is left out too. The Raw JSON editor sends what it holds, so a person who types
 * a read-only field there sends it. Returns a new object; `args` is not changed.
 */
export function omitReadOnly(validator: Validator, schema: RJSFSchema, args: Record<string, unknown>, chosen: ChosenOptions = new Map()): Record<string, unknown> {
  const kept = strip(validator, schema, [schema], args, [], chosen);
  return kept === DROP || typeof kept !== "object" || kept === null || Array.isArray(kept) ? {} : (kept as Record<string, unknown>);
}

import { deepEquals, type RJSFSchema, type ValidatorType } from "@rjsf/utils";
import { applicableSchemas, itemSchemas, propertySchemas, type ChosenOptions } from "./chosen-branches";

/** Any rjsf validator, whatever its form data type (only isValid and option matching are used). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Validator = ValidatorType<any, RJSFSchema, any>;
type Path = readonly (string | number)[];

const DROP = Symbol("drop");

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** True when stripping turned a non-empty object into an empty one. */
function isEmptied(before: unknown, after: unknown): boolean {
  return isObject(before) && isObject(after) && Object.keys(before).length > 0 && Object.keys(after).length === 0;
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

/** The place `omitReadOnly` leaves out: a read-only value, or an optional object holding only read-only values. */
function isLeftOut(validator: Validator, root: RJSFSchema, schemas: readonly unknown[], value: unknown, path: Path, chosen: ChosenOptions, required: boolean): boolean {
  const kept = strip(validator, root, schemas, value, path, chosen);
  return kept === DROP || (isEmptied(value, kept) && !required);
}

function restore(validator: Validator, root: RJSFSchema, schemas: readonly unknown[], shown: unknown, edited: unknown, path: Path, chosen: ChosenOptions): unknown {
  const applicable = applicableSchemas(validator, root, schemas, shown, path, chosen);
  if (Array.isArray(shown) && Array.isArray(edited)) {
    const itemsAt = (index: number) => applicable.flatMap((schema) => itemSchemas(schema, index));
    // Left-out items shifted the others' places: only an array left as the view showed it gets them back.
    if (shown.some((item, index) => strip(validator, root, itemsAt(index), item, [...path, index], chosen) === DROP)) {
      return deepEquals(edited, strip(validator, root, schemas, shown, path, chosen)) ? shown : edited;
    }
    return edited.map((item, index) => (index < shown.length ? restore(validator, root, itemsAt(index), shown[index], item, [...path, index], chosen) : item));
  }
  if (isObject(shown) && isObject(edited)) {
    const out: Record<string, unknown> = { ...edited };
    const required = new Set(applicable.flatMap((schema) => (Array.isArray(schema.required) ? schema.required : [])));
    for (const [key, value] of Object.entries(shown)) {
      const at = applicable.flatMap((schema) => propertySchemas(schema, key));
      if (Object.hasOwn(edited, key)) out[key] = restore(validator, root, at, value, edited[key], [...path, key], chosen);
      else if (isLeftOut(validator, root, at, value, [...path, key], chosen, required.has(key))) out[key] = value;
    }
    return out;
  }
  return edited;
}

/**
 * The form's args after the person edited them as Raw JSON: `edited` (the parsed text), with each
 * read-only value of `shown` (the form's args when the Raw JSON view opened on omitReadOnly of them)
 * put back where the view left it out and the text still has nothing — a read-only value, or an
 * optional object that held only read-only values — at any depth (omitReadOnly's places). A value the
 * person typed wins; a value the person deleted that the view showed stays deleted; array items are
 * matched by position, and an array the view had left read-only items out of gets them back only when
 * its text is unchanged. The form shows the read-only values again and, as always, does not send them.
 * Returns a new object; neither argument is changed.
 */
export function restoreReadOnly(validator: Validator, schema: RJSFSchema, shown: Record<string, unknown>, edited: Record<string, unknown>, chosen: ChosenOptions = new Map()): Record<string, unknown> {
  return restore(validator, schema, [schema], shown, edited, [], chosen) as Record<string, unknown>;
}

import type { RJSFSchema } from "@rjsf/utils";

function typesOf(schema: RJSFSchema): string[] {
  if (Array.isArray(schema.type)) return schema.type as string[];
  if (typeof schema.type === "string") return [schema.type];
  const branches = (schema.anyOf ?? schema.oneOf ?? []) as RJSFSchema[];
  // A `const: null` option stands for the `null` type of a union (see toFormSchema).
  return [
    ...new Set(
      branches.flatMap((branch) =>
        typeof branch !== "object" || branch === null ? [] : typeof branch.type === "string" ? [branch.type] : "const" in branch && branch.const === null ? ["null"] : [],
      ),
    ),
  ];
}

function range(min: unknown, max: unknown, exclusiveMin: unknown, exclusiveMax: unknown): string | null {
  const low = typeof exclusiveMin === "number" ? `> ${exclusiveMin}` : null;
  const high = typeof exclusiveMax === "number" ? `< ${exclusiveMax}` : null;
  if (typeof min === "number" && typeof max === "number") return `${min}–${max}`;
  const parts = [typeof min === "number" ? `≥ ${min}` : low, typeof max === "number" ? `≤ ${max}` : high].filter(Boolean);
  return parts.length > 0 ? parts.join(", ") : null;
}

function lengthRange(word: string, min: unknown, max: unknown): string | null {
  const span = range(min, max, undefined, undefined);
  return span ? `${word} ${span}` : null;
}

/**
 * A one-line summary of a field's type and constraints for display next to its label, e.g.
 * "integer · 1–100", "string · email", "string · length ≥ 3 · pattern ^/", "string or null".
 * Returns "" when the schema declares neither a type nor a constraint.
 */
export function describeConstraints(schema: RJSFSchema): string {
  const parts: (string | null)[] = [];
  const types = typesOf(schema);
  const nonNull = types.filter((type) => type !== "null");
  if (types.length > 0) {
    const itemType = schema.type === "array" && typeof schema.items === "object" && !Array.isArray(schema.items) ? typesOf(schema.items as RJSFSchema)[0] : undefined;
    const named = nonNull.map((type) => (type === "array" && itemType ? `array of ${itemType}` : type));
    parts.push([...named, ...(types.includes("null") ? ["null"] : [])].join(" or "));
  }
  if (typeof schema.format === "string") parts.push(schema.format);
  parts.push(range(schema.minimum, schema.maximum, schema.exclusiveMinimum, schema.exclusiveMaximum));
  if (typeof schema.multipleOf === "number") parts.push(`multiple of ${schema.multipleOf}`);
  parts.push(lengthRange("length", schema.minLength, schema.maxLength));
  if (typeof schema.pattern === "string") parts.push(`pattern ${schema.pattern}`);
  parts.push(lengthRange("items", schema.minItems, schema.maxItems));
  if (schema.uniqueItems === true) parts.push("unique");
  return parts.filter(Boolean).join(" · ");
}

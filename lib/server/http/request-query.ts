import type { JsonSchema } from "@/lib/types/skill";
import { AppError } from "../errors";
import { checkBody } from "./request-body";

/**
 * Reads a request's query string as an object and checks it against `schema` (a JSON Schema of an
 * object in lib/validation/, like a request body's: STYLE.md, one schema per request). An empty value
 * (`?actor=`) counts as absent, as the console's own pages leave a cleared field; a value whose
 * property the schema types `integer` is handed to ajv as a number when it is written as one (else as
 * the text, which ajv refuses as "must be integer"). Returns the query typed as `T`. Throws AppError
 * `bad_request` (400) for a name given twice, or a query the schema refuses (`<what>: /limit must be
 * <= 500`, the ajv errors in `details`).
 */
export function parseRequestQuery<T>(url: URL, schema: JsonSchema, what: string): T {
  const properties = (schema.properties ?? {}) as Record<string, { type?: unknown } | undefined>;
  // No prototype: a name such as `__proto__` is an own property the schema refuses, never the object's prototype.
  const query = Object.create(null) as Record<string, unknown>;
  for (const [name, value] of url.searchParams) {
    if (value === "") continue;
    if (Object.hasOwn(query, name)) throw new AppError("bad_request", `${what}: ${name} is given more than once`);
    query[name] = properties[name]?.type === "integer" && /^-?\d{1,15}$/.test(value) ? Number(value) : value;
  }
  return checkBody<T>(query, schema, what);
}

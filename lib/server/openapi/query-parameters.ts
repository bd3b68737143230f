import type { JsonSchema } from "@/lib/types/skill";
import type { QueryParameter } from "./api-operation";

/**
 * The query parameters a route's query schema declares (lib/validation; the very object the route
 * checks its query with, e.g. parseRequestQuery): one per property, with its description and schema,
 * required when the schema says so. Pure.
 */
export function queryOf(schema: JsonSchema): QueryParameter[] {
  const { properties = {}, required = [] } = schema as { properties?: Record<string, JsonSchema & { description?: string }>; required?: readonly string[] };
  return Object.entries(properties).map(([name, property]) => ({ name, description: property.description ?? name, schema: property, ...(required.includes(name) ? { required: true } : {}) }));
}

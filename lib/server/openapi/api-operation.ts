import type { Role } from "@/lib/types/identity";
import type { JsonSchema } from "@/lib/types/skill";
import type { ResponseSchemaName } from "./response-schemas";

/**
 * Who may call an operation: anyone (`public`, sign-in only), a worker token (`worker`, the worker
 * protocol), an API token (`mcp`), or a signed-in person or API token of at least `role` (`person`:
 * a person only, never a token). DESIGN.md "HTTP interface" and "Workers and the sandbox".
 */
export type Access = "public" | "worker" | "mcp" | { role: Role; person?: boolean };

/** One query parameter of an operation. */
export interface QueryParameter {
  name: string;
  description: string;
  schema: JsonSchema;
  required?: boolean;
}

/** One answer of an operation: its description, and the schema of its body (a name under `#/components/schemas/`, or a schema). */
export type OperationResponse = string | { description: string; schema?: JsonSchema | ResponseSchemaName; contentType?: string };

/**
 * One route and method of the console's HTTP API, as `GET /api/v1/openapi.json` describes it. `path`
 * is the OpenAPI form of the route's folder under app/ (`[id]` → `{id}`, `[...path]` → `{path}`);
 * `body.schema` is the very object the route checks its body with (lib/validation), never a copy.
 * Error answers (4xx/5xx) carry the error envelope unless they say otherwise; 401 is added for every
 * operation that is not public.
 */
export interface ApiOperation {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  tag: string;
  summary: string;
  description?: string;
  access: Access;
  query?: readonly QueryParameter[];
  body?: { schema: JsonSchema; contentType?: string; required?: boolean; description?: string };
  responses: Readonly<Record<number, OperationResponse>>;
}

/**
 * An answer whose body is an object holding named schemas under `#/components/schemas/`:
 * `fields` maps each required property to a schema name, or to `[name]` for an array of them
 * (`{packs: ["Pack"]}` → `{packs: [Pack]}`). Other properties the answer carries are allowed.
 */
export function answerOf(description: string, fields: Readonly<Record<string, ResponseSchemaName | readonly [ResponseSchemaName]>>): OperationResponse {
  const properties: Record<string, JsonSchema> = {};
  for (const [property, name] of Object.entries(fields)) {
    const ref = { $ref: `#/components/schemas/${typeof name === "string" ? name : name[0]}` };
    properties[property] = typeof name === "string" ? ref : { type: "array", items: ref };
  }
  return { description, schema: { type: "object", required: Object.keys(fields), properties } };
}

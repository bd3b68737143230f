import type { JsonSchema } from "@/lib/types/skill";
import type { Access, ApiOperation, OperationResponse } from "./api-operation";
import { API_OPERATIONS } from "./api-operations";
import { RESPONSE_SCHEMAS } from "./response-schemas";
import { MCP_SERVER_INFO } from "../tools/mcp-server";

/** An OpenAPI 3.1 document, as plain JSON. */
export type OpenApiDocument = Record<string, unknown> & { openapi: string; paths: Record<string, Record<string, Record<string, unknown>>> };

/** Names of the security schemes under `components.securitySchemes`. */
export const SECURITY_SCHEMES = {
  sessionCookie: { type: "apiKey", in: "cookie", name: "skill-console.session_token", description: "a person signed in through POST /api/v1/auth/login; state-changing requests also need the console's own Origin" },
  apiToken: { type: "http", scheme: "bearer", description: "an API token (POST /api/v1/tokens) as `Authorization: Bearer <token>`; it acts as its persona, at most as an operator" },
  workerToken: { type: "http", scheme: "bearer", description: "a worker token (POST /api/v1/worker-tokens); accepted only by the worker protocol" },
} as const;

/** The security requirement of an operation: who may call it, in OpenAPI's terms. */
function securityOf(access: Access): Record<string, string[]>[] {
  if (access === "public") return [];
  if (access === "worker") return [{ workerToken: [] }];
  if (access === "mcp") return [{ apiToken: [] }];
  return access.person ? [{ sessionCookie: [] }] : [{ sessionCookie: [] }, { apiToken: [] }];
}

/** The human line the reference page shows for `access`. */
export function accessLabel(access: Access): string {
  if (access === "public") return "anyone";
  if (access === "worker") return "worker token";
  if (access === "mcp") return "API token";
  return `${access.role} and above${access.person ? ", a person (no API token)" : ""}`;
}

const ERROR_REF = { $ref: "#/components/schemas/Error" } as const;

function responseObject(status: number, answer: OperationResponse): Record<string, unknown> {
  const { description, schema, contentType } = typeof answer === "string" ? { description: answer, schema: undefined, contentType: undefined } : answer;
  const body = schema === undefined ? (status >= 400 ? ERROR_REF : undefined) : typeof schema === "string" ? { $ref: `#/components/schemas/${schema}` } : schema;
  if (body === undefined || status === 204) return { description };
  return { description, content: { [contentType ?? "application/json"]: { schema: body } } };
}

function operationObject(operation: ApiOperation): Record<string, unknown> {
  const pathParameters = [...operation.path.matchAll(/\{([^}]+)\}/g)].map((match) => ({ name: match[1]!, in: "path", required: true, schema: { type: "string" } }));
  const queryParameters = (operation.query ?? []).map((parameter) => ({ name: parameter.name, in: "query", required: parameter.required ?? false, description: parameter.description, schema: parameter.schema }));
  const responses: Record<string, unknown> = {};
  const statuses: Record<number, OperationResponse> = { ...operation.responses };
  if (operation.access !== "public" && statuses[401] === undefined) statuses[401] = "`unauthenticated`: no valid session or token";
  if (typeof operation.access === "object" && statuses[403] === undefined) statuses[403] = "`forbidden` (role) or `bad_origin`";
  for (const status of Object.keys(statuses).map(Number).sort((a, b) => a - b)) responses[String(status)] = responseObject(status, statuses[status]!);
  return {
    tags: [operation.tag],
    summary: operation.summary,
    ...(operation.description ? { description: operation.description } : {}),
    operationId: operationId(operation),
    "x-access": accessLabel(operation.access),
    security: securityOf(operation.access),
    ...(pathParameters.length + queryParameters.length > 0 ? { parameters: [...pathParameters, ...queryParameters] } : {}),
    ...(operation.body
      ? {
          requestBody: {
            required: operation.body.required ?? false,
            ...(operation.body.description ? { description: operation.body.description } : {}),
            content: { [operation.body.contentType ?? "application/json"]: { schema: operation.body.schema as JsonSchema } },
          },
        }
      : {}),
    responses,
  };
}

/** `POST /api/v1/skills/{name}/calls` → `post_api_v1_skills_name_calls`: unique per method and path. */
function operationId(operation: ApiOperation): string {
  return `${operation.method.toLowerCase()}${operation.path.replace(/[^A-Za-z0-9]+/g, "_").replace(/_$/, "")}`;
}

/**
 * Builds the OpenAPI 3.1 document of the console's API from API_OPERATIONS (DESIGN.md "Integrations":
 * generated from the request schemas the server validates with): one path item per route, each
 * operation with its tag, access (`security` and `x-access`), path and query parameters, request body
 * schema, and answers (error answers carry the error envelope). Takes `version` (the console's);
 * returns the document as plain JSON. Pure; throws nothing.
 */
export function buildOpenApiDocument(version: string, operations: readonly ApiOperation[] = API_OPERATIONS): OpenApiDocument {
  const paths: OpenApiDocument["paths"] = {};
  for (const operation of operations) (paths[operation.path] ??= {})[operation.method.toLowerCase()] = operationObject(operation);
  const tags = [...new Set(operations.map((operation) => operation.tag))].map((name) => ({ name }));
  return {
    openapi: "3.1.0",
    info: { title: "Skill console API", version, description: "Every route of the console's HTTP API. Errors are `{\"error\": {\"code\", \"message\", \"details\"}}`; every /api/v1 request without a valid session or token answers 401 `unauthenticated`." },
    tags,
    paths,
    components: { schemas: RESPONSE_SCHEMAS, securitySchemes: SECURITY_SCHEMES },
  };
}

let built: OpenApiDocument | null = null;

/** The console's document (buildOpenApiDocument over API_OPERATIONS), built once: the table never changes while the console runs. */
export function openApiDocument(): OpenApiDocument {
  return (built ??= buildOpenApiDocument(MCP_SERVER_INFO.version));
}

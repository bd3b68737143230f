/**
 * The parts of `GET /api/v1/openapi.json` (an OpenAPI 3.1 document, DESIGN.md "Integrations") the API
 * reference page reads. Universal: shared by the server's generator and the console's page.
 */

/** One parameter of an operation (path or query). */
export interface OpenApiParameter {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required?: boolean;
  description?: string;
  schema?: unknown;
}

/** One answer of an operation: its description and, by media type, its schema. */
export interface OpenApiResponse {
  description: string;
  content?: Record<string, { schema?: unknown }>;
}

/** One operation (a method of a path). `x-access` is the console's words for who may call it. */
export interface OpenApiOperation {
  tags?: string[];
  summary?: string;
  description?: string;
  operationId?: string;
  "x-access"?: string;
  security?: Record<string, string[]>[];
  parameters?: OpenApiParameter[];
  requestBody?: { required?: boolean; description?: string; content: Record<string, { schema?: unknown }> };
  responses: Record<string, OpenApiResponse>;
}

/** The document: its paths (path → lower-case method → operation), tags in order, and components. */
export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description?: string };
  tags?: { name: string; description?: string }[];
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, unknown>; securitySchemes?: Record<string, unknown> };
}

import { AppError } from "../errors";
import { refuseUnknownFields } from "../http/known-fields";

/** The body of `POST /api/v1/tools/call` once checked. */
export interface ToolCallRequest {
  name: string;
  /** The tool's arguments (absent = `{}`); checked against the tool's schema by callTool. */
  arguments: unknown;
  /** The persona named in the body, or null (a token's own persona, or `default` for a person). */
  persona: string | null;
}

/** The fields a tool call request may have. */
export const TOOL_CALL_REQUEST_FIELDS: readonly string[] = ["name", "arguments", "persona"];

/**
 * Checks the shape of a tool call body `{"name": "...", "arguments": {...}, "persona": "..."}`. Throws
 * AppError `bad_request` for a body that is not an object, an unknown field (a typo such as `args`
 * must not call the tool with no arguments), a missing or empty `name`, or a `persona` that is not a
 * non-empty string.
 */
export function parseToolCallRequest(body: unknown): ToolCallRequest {
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw new AppError("bad_request", 'the request body must be a JSON object like {"name": "skill_search", "arguments": {"query": "..."}}');
  }
  refuseUnknownFields(body, TOOL_CALL_REQUEST_FIELDS, "a tool call request");
  const { name, arguments: args, persona } = body as Record<string, unknown>;
  if (typeof name !== "string" || name === "") throw new AppError("bad_request", "name must be the name of a tool (GET /api/v1/tools lists them)");
  if (persona !== undefined && persona !== null && (typeof persona !== "string" || persona.trim() === "")) {
    throw new AppError("bad_request", "persona must be a persona's name");
  }
  return { name, arguments: args === undefined ? {} : args, persona: typeof persona === "string" ? persona.trim() : null };
}

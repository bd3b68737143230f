import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import type { JsonSchema } from "@/lib/types/skill";
import { compileSchema, formatAjvErrors, MAX_ERROR_DETAILS } from "@/lib/validation/ajv";
import { REQUEST_BODY_SCHEMAS } from "@/lib/validation/worker-requests";
import { AppError } from "../errors";
import { readJsonBody } from "./api-route";

/** Largest body of a worker report or admin form (the call body has its own limit, SKILL_ARGS_LIMIT_BYTES). */
export const DEFAULT_BODY_LIMIT_BYTES = 16 * 1024 * 1024;

/**
 * Reads a request's JSON body (at most `limitBytes`) and checks it against `schema` (lib/validation;
 * STYLE.md: one schema per request body, parsed by the route helper). An empty body is checked as `{}`.
 * `maxNodes` caps its JSON values before parsing (readJsonBody; default SKILL_ARGS_MAX_NODES).
 * Returns the body typed as `T`. Throws AppError `args_too_large` (413) past either limit, `bad_request`
 * (400) for invalid JSON or a body the schema refuses, with the ajv errors in one line and in `details`.
 */
export async function parseRequestBody<T>(request: Request, schema: JsonSchema, what: string, limitBytes = DEFAULT_BODY_LIMIT_BYTES, maxNodes?: number): Promise<T> {
  const body = (await readJsonBody(request, limitBytes, maxNodes)) ?? {};
  return checkBody<T>(body, schema, what);
}

/** Checks an already parsed body against `schema` like parseRequestBody. */
export function checkBody<T>(body: unknown, schema: JsonSchema, what: string): T {
  const { validate } = compileSchema(schema);
  if (!validate(body)) throw new AppError("bad_request", `${what}: ${formatAjvErrors(validate.errors)}`, (validate.errors ?? []).slice(0, MAX_ERROR_DETAILS));
  return body as T;
}

/**
 * Compiles every request body schema (lib/validation/worker-requests.ts) once, the event loop free
 * between them, so that none is compiled inside a request: the finish report's took ~15 ms of the
 * event loop in the first call a console ran (issue 10 point 1). Called at start-up; never throws
 * (a schema that fails to compile fails its requests as before).
 */
export async function precompileRequestSchemas(): Promise<void> {
  for (const schema of REQUEST_BODY_SCHEMAS) {
    try {
      compileSchema(schema);
    } catch (error) {
      console.error("compiling a request body schema failed:", error);
    }
    await yieldToEventLoop();
  }
}

/** Items of a listed body checked at once by parseListedBody (a few ms of ajv). */
const LIST_SLICE_ITEMS = 2000;

/**
 * parseRequestBody for a body whose `list.key` is a long list (a worker's `skills`: up to 50,000
 * objects): the body is checked against `schema` with the list emptied, the list's length against
 * `list.maxItems`, then its items against `list.schema` (an array schema) a slice of LIST_SLICE_ITEMS
 * at a time, the event loop free after parsing and between slices (issue 10 point 1: one pass over
 * 50,000 skills held it for tens of ms). Refusals are those of parseRequestBody, an item's named by
 * its index (`/skills/12345`).
 */
export async function parseListedBody<T>(
  request: Request,
  schema: JsonSchema,
  list: { key: string; schema: JsonSchema; maxItems: number },
  what: string,
  limitBytes: number,
  maxNodes: number,
): Promise<T> {
  const body = (await readJsonBody(request, limitBytes, maxNodes)) ?? {};
  await yieldToEventLoop();
  const holder = body as Record<string, unknown>;
  const items = body !== null && typeof body === "object" && !Array.isArray(body) ? holder[list.key] : undefined;
  if (!Array.isArray(items)) return checkBody<T>(body, schema, what);
  holder[list.key] = [];
  checkBody<T>(body, schema, what);
  if (items.length > list.maxItems) throw new AppError("bad_request", `${what}: /${list.key} must NOT have more than ${list.maxItems} items`);
  const { validate } = compileSchema(list.schema);
  for (let start = 0; start < items.length; start += LIST_SLICE_ITEMS) {
    if (!validate(items.slice(start, start + LIST_SLICE_ITEMS))) {
      const errors = (validate.errors ?? []).map((error) => ({ ...error, instancePath: error.instancePath.replace(/^\/(\d+)/, (_, index: string) => `/${list.key}/${start + Number(index)}`) }));
      throw new AppError("bad_request", `${what}: ${formatAjvErrors(errors)}`, errors.slice(0, MAX_ERROR_DETAILS));
    }
    await yieldToEventLoop();
  }
  holder[list.key] = items;
  return body as T;
}

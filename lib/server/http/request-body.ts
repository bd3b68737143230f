import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import type { JsonSchema } from "@/lib/types/skill";
import { compileSchema, formatAjvErrors, MAX_ERROR_DETAILS } from "@/lib/validation/ajv";
import { JsonListText, JsonText } from "@/lib/validation/json-text";
import { REQUEST_BODY_SCHEMAS } from "@/lib/validation/worker-requests";
import { AppError } from "../errors";
import { readJsonBody } from "./api-route";
import { refuseUnknownFields } from "./known-fields";

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

/** How checkRequestBody words a refusal: the body's name, and what to say before the schema's own message. */
export interface RequestBodyWording {
  /** The body's name in messages, e.g. "a call request" (`unknown field "argz"; a call request has args, …`). */
  what: string;
  /** The message for a body that is not a JSON object, e.g. `the body must be {"reason": "..."}`. */
  shape?: string;
  /**
   * The verb's own check of a refused body (e.g. parseCallRequest), run only when the schema refuses
   * it and instead of the `shape` and unknown-field messages, so the answer keeps the verb's message
   * naming the field; when it does not throw, the schema's message is the answer.
   */
  explain?: (body: unknown) => unknown;
}

/**
 * Checks a JSON request body already read (readJsonBody; undefined for an empty body, checked as `{}`)
 * against its declared schema in lib/validation — the same object `GET /api/v1/openapi.json`
 * publishes for the route (lib/server/openapi/api-operations.ts), so what the document says and what
 * the route accepts are one (STYLE.md: one schema per request body, parsed by the route helper).
 * Returns the body unchanged. A refused body throws AppError `bad_request` (400): what `wording.explain`
 * throws when given; else `wording.shape` for a body that is not an object, or refuseUnknownFields'
 * message for unknown top-level fields; else `<what>: <ajv errors>` with the errors in `details`.
 */
export function checkRequestBody<T = unknown>(body: unknown, schema: JsonSchema, wording: RequestBodyWording): T {
  const { validate } = compileSchema(schema);
  if (validate(body === undefined ? {} : body)) return body as T;
  const errors = (validate.errors ?? []).slice(0, MAX_ERROR_DETAILS);
  const message = formatAjvErrors(validate.errors);
  if (wording.explain) wording.explain(body);
  else {
    const isObject = body !== null && typeof body === "object" && !Array.isArray(body);
    if (!isObject && body !== undefined && wording.shape) throw new AppError("bad_request", wording.shape);
    const fields = (schema as { properties?: Record<string, unknown> }).properties;
    if (isObject && fields && (schema as { additionalProperties?: unknown }).additionalProperties === false) refuseUnknownFields(body, Object.keys(fields), wording.what);
  }
  throw new AppError("bad_request", `${wording.what}: ${message}`, errors);
}

/**
 * Compiles every request body schema once, the event loop free between them, so that none is compiled
 * inside a request: the finish report's took ~15 ms of the event loop in the first call a console ran
 * (issue 10 point 1). `schemas` are the bodies of the routes' table (lib/server/openapi: every route
 * describes the schema it checks) and the worker protocol's list slices (REQUEST_BODY_SCHEMAS).
 * Called at start-up; never throws (a schema that fails to compile fails its requests as before).
 */
export async function precompileRequestSchemas(schemas: readonly JsonSchema[]): Promise<void> {
  for (const schema of new Set([...schemas, ...REQUEST_BODY_SCHEMAS])) {
    try {
      compileSchema(schema);
    } catch (error) {
      console.error("compiling a request body schema failed:", error);
    }
    await yieldToEventLoop();
  }
}

/** Items of a listed body parsed and checked at once by parseListedBody (a few ms of JSON.parse and ajv). */
const LIST_SLICE_ITEMS = 1000;
/** Most bytes of a listed body's items parsed and checked at once by parseListedBody. */
const LIST_SLICE_BYTES = 512 * 1024;

/**
 * parseRequestBody for a body whose `list.key` is a long list (a worker's `skills`: up to 50,000
 * objects, 9 MB): the list is cut out of the body unparsed (readJsonBody `listItems`), the rest is
 * parsed and checked against `schema` with the list emptied, the list's length against
 * `list.maxItems` before any item is parsed, then its items are parsed and checked against
 * `list.schema` (an array schema) a slice of LIST_SLICE_ITEMS at a time, the event loop free between
 * slices (issue 10 point 1: one JSON.parse of 50,000 skills held it 91 ms, one ajv pass tens of ms).
 * Refusals are those of parseRequestBody, an item's named by its index (`/skills/12345`); the body
 * besides the list may be at most `beside.maxBytes` (default PARSED_BESIDE_TEXT_MAX_BYTES; 413), and
 * is parsed off the main thread when large, its `beside.cappedStrings` fields past their caps set to
 * null (readJsonBody `cappedStrings`; oversizedFieldsOf tells which).
 */
export async function parseListedBody<T>(
  request: Request,
  schema: JsonSchema,
  list: { key: string; schema: JsonSchema; maxItems: number },
  what: string,
  limitBytes: number,
  maxNodes: number,
  beside: { maxBytes?: number; cappedStrings?: Record<string, number> } = {},
): Promise<T> {
  const body = (await readJsonBody(request, limitBytes, maxNodes, { keepText: [list.key], listItems: true, besideMaxBytes: beside.maxBytes, cappedStrings: beside.cappedStrings })) ?? {};
  const holder = body as Record<string, unknown>;
  const kept = body !== null && typeof body === "object" && !Array.isArray(body) ? holder[list.key] : undefined;
  // Not a list (a string, an object…): small enough to parse at once, and the schema's to refuse.
  if (kept instanceof JsonText) holder[list.key] = parseKept(kept.text, list.key);
  if (!(kept instanceof JsonListText)) return checkBody<T>(body, schema, what);
  holder[list.key] = [];
  checkBody<T>(body, schema, what);
  if (kept.length > list.maxItems) throw new AppError("bad_request", `${what}: /${list.key} must NOT have more than ${list.maxItems} items`);
  const { validate } = compileSchema(list.schema);
  const items: unknown[] = [];
  for (let start = 0, end = 0; start < kept.length; start = end) {
    // At most LIST_SLICE_ITEMS items and LIST_SLICE_BYTES of text (one item at least): 1,000 lines of
    // 3,000 characters took 40 ms of parsing and ajv in one turn.
    end = start + 1;
    while (end < kept.length && end - start < LIST_SLICE_ITEMS && kept.bytesOf(start, end + 1) <= LIST_SLICE_BYTES) end++;
    await yieldToEventLoop();
    let slice: unknown[];
    try {
      slice = kept.parse(start, end);
    } catch (error) {
      throw new AppError("bad_request", `request body is not valid JSON: ${list.key}: ${(error as Error).message}`);
    }
    if (!validate(slice)) {
      const errors = (validate.errors ?? []).map((error) => ({ ...error, instancePath: error.instancePath.replace(/^\/(\d+)/, (_, index: string) => `/${list.key}/${start + Number(index)}`) }));
      throw new AppError("bad_request", `${what}: ${formatAjvErrors(errors)}`, errors.slice(0, MAX_ERROR_DETAILS));
    }
    for (const item of slice) items.push(item);
  }
  holder[list.key] = items;
  return body as T;
}

function parseKept(text: string, key: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new AppError("bad_request", `request body is not valid JSON: ${key}: ${(error as Error).message}`);
  }
}

import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { roleAtLeast, type Identity, type Role } from "@/lib/types/identity";
import { identify } from "../auth/identity";
import { ensureConsoleStarted } from "../console-startup";
import { AppError, closeConnectionAfter, errorResponse } from "../errors";
import { BODY_DEADLINE_MS, BODY_IDLE_MS, noteBodyOwner, reserveBody, type BodyReservation } from "./body-budget";
import { assertSameOrigin } from "./same-origin";
import { auditActor, requirePerson } from "../approvals/audit-actor";
import { recordRefusedAttempt } from "../audit/refused-attempts";
import { config } from "../env";
import { JsonShapeError, JsonShapeScanner } from "@/lib/validation/json-shape";
import { MAX_JSON_DEPTH } from "@/lib/validation/json-depth";
import { JsonListText, JsonText } from "@/lib/validation/json-text";
import { nullOversizedStrings, parseJsonOffThread } from "@/lib/validation/args-validator";

/**
 * Wraps an `/api/v1` route handler (issue 4 point 1; DESIGN.md "HTTP interface"): waits until the
 * console has started (first loader scan done), identifies the caller (identify(): session cookie or
 * bearer token; neither → 401 `unauthenticated`), refuses a state-changing request authenticated by a
 * cookie unless its Origin is the console's own (403 `bad_origin`, Origin required), refuses API tokens
 * when `person` says what only a person may do (403 "a person must <person>"), refuses callers
 * below `role` (default viewer; 403 `forbidden`; a token acts at most as an operator), runs the handler with the identity, and turns any
 * thrown error into the one error envelope (STYLE.md rule 3). Every 403 `forbidden` / `bad_origin`,
 * the checks' or the handler's, is an `access.refused` audit entry (recordRefusedAttempt).
 * `answerError` replaces errorResponse for a route that answers another system's error shape (the
 * ongrid drop-in, lib/server/ongrid); the checks and the audit stay the same.
 */
export function apiRoute<Context>(
  handler: (request: Request, context: Context, identity: Identity) => Promise<Response>,
  options: { role?: Role; person?: string; answerError?: (error: unknown) => Response } = {},
) {
  const minimum = options.role ?? "viewer";
  const answerError = options.answerError ?? errorResponse;
  return async (request: Request, context: Context): Promise<Response> => {
    let identity: Identity | null = null;
    try {
      await ensureConsoleStarted();
      identity = await identify(request);
      if (!identity) throw new AppError("unauthenticated", "sign in, or send an API token as Authorization: Bearer <token>");
      noteBodyOwner(request, `person:${identity.userId}`);
      if (identity.via === "session") assertSameOrigin(request, { requireOrigin: true });
      if (options.person !== undefined) requirePerson(identity, options.person);
      if (!roleAtLeast(identity.role, minimum)) {
        if (identity.via === "token") {
          throw new AppError("forbidden", `this needs the ${minimum} role; API token ${identity.token?.name ?? ""} of ${identity.email} acts at most as ${article(identity.role)} ${identity.role}`);
        }
        throw new AppError("forbidden", `this needs the ${minimum} role; ${identity.email} is ${article(identity.role)} ${identity.role}`);
      }
      return await handler(request, context, identity);
    } catch (error) {
      await recordRefusedAttempt(request, error, identity && { actor: auditActor(identity), actorId: identity.userId });
      return answerError(error);
    }
  };
}

function article(role: Role): string {
  return role === "admin" || role === "approver" || role === "operator" ? "an" : "a";
}

/**
 * Wraps a route handler that needs no identity (sign-in): refuses a cross-origin state-changing request
 * (an Origin, when sent, must be the console's own), waits for start-up, runs the handler, and turns
 * errors into the error envelope.
 */
export function publicApiRoute<Context>(handler: (request: Request, context: Context) => Promise<Response>) {
  return async (request: Request, context: Context): Promise<Response> => {
    try {
      assertSameOrigin(request, { requireOrigin: false });
      await ensureConsoleStarted();
      return await handler(request, context);
    } catch (error) {
      await recordRefusedAttempt(request, error, null);
      return errorResponse(error);
    }
  };
}

/**
 * Most bytes of a body whose args are kept as text (readJsonBody `keepText`, MCP's tools/call) that are
 * parsed on the main thread: everything but the args (issue 10 point 1: 99,990 unknown keys or an
 * 8 MiB persona name beside the args stalled the event loop 100–400 ms and came back in the error).
 */
export const PARSED_BESIDE_TEXT_MAX_BYTES = 64 * 1024;

/** Deepest nesting a request body may have: a call's args (MAX_JSON_DEPTH) wrapped twice (`{"params":{"arguments":…}}` over MCP). */
const MAX_BODY_DEPTH = MAX_JSON_DEPTH + 2;

/**
 * Reads a JSON request body of at most `limitBytes` bytes without buffering more than that, counting
 * its values and depth as the bytes arrive (JsonShapeScanner; issue 10 point 1), so a body of millions
 * of tiny values is refused before JSON.parse and the garbage it makes can stall the event loop.
 * Returns the parsed value (undefined for an empty body). Throws AppError `args_too_large` (413) past
 * `limitBytes` or past `maxNodes` values (SKILL_ARGS_MAX_NODES), `bad_request` (400) past
 * MAX_BODY_DEPTH levels or for invalid JSON, with the parser's message.
 * `keepText`: a path of object keys (`["args"]`) whose value is not parsed here but returned as a
 * JsonText of its bytes (the validation thread parses it, off the main thread); that field twice is a
 * `bad_request`. The rest of the body is parsed as usual, and may be at most
 * PARSED_BESIDE_TEXT_MAX_BYTES (413 `args_too_large` past it).
 * `besideMaxBytes` replaces PARSED_BESIDE_TEXT_MAX_BYTES (a finish report's result, megabytes, is beside its events).
 * `listItems` (with `keepText`): a kept value that is an array comes as a JsonListText instead, its
 * items separated but not parsed (lib/server/http/request-body.ts parseListedBody parses them a slice
 * at a time).
 * `cappedStrings` (top-level field → most UTF-8 bytes): the body besides the kept value, when larger
 * than PARSED_BESIDE_TEXT_MAX_BYTES, is parsed in the validation thread (parseJsonOffThread), and a
 * named string field past its cap comes back null, its size in oversizedFieldsOf(body) — a finish
 * report's result of tens of megabytes never reaches the main thread.
 */
export async function readJsonBody(
  request: Request,
  limitBytes: number,
  maxNodes: number = config().argsMaxNodes,
  options: { keepText?: readonly string[]; listItems?: boolean; besideMaxBytes?: number; cappedStrings?: Record<string, number> } = {},
): Promise<unknown> {
  const shape = new JsonShapeScanner({ maxNodes, maxDepth: MAX_BODY_DEPTH, capture: options.keepText, captureItems: options.listItems });
  let bytes: Buffer;
  try {
    bytes = await readScannedBody(request, limitBytes, shape);
  } catch (error) {
    if (error instanceof BodyTooLarge) throw tooLarge(limitBytes);
    if (!(error instanceof JsonShapeError)) throw error;
    if (error.kind === "nodes") throw new AppError("args_too_large", `request body has more than ${error.limit} JSON values (SKILL_ARGS_MAX_NODES)`);
    if (error.kind === "duplicate") throw new AppError("bad_request", `request body has the field ${error.key} twice`);
    throw new AppError("bad_request", `request body nests deeper than ${error.limit} levels`);
  }
  const span = shape.capturedSpan;
  if (options.keepText) {
    // The rest is parsed here, on the main thread, and may be echoed in errors: it must stay small.
    const here = bytes.byteLength - (span ? span.end - span.start : 0);
    const beside = options.besideMaxBytes ?? PARSED_BESIDE_TEXT_MAX_BYTES;
    if (here > beside) {
      throw new AppError("args_too_large", `request body has ${here} bytes besides ${options.keepText.join(".")}; at most ${beside} are allowed`);
    }
  }
  // The kept value is cut out (parsed as null) and handed on as its text. Copying tens of megabytes
  // takes milliseconds: the event loop gets a turn first.
  if (options.cappedStrings && bytes.byteLength > PARSED_BESIDE_TEXT_MAX_BYTES) await yieldToEventLoop();
  const beside = span ? Buffer.concat([bytes.subarray(0, span.start), Buffer.from("null"), bytes.subarray(span.end)]) : bytes;
  const body = options.cappedStrings ? await parseCapped(beside, options.cappedStrings) : parseBodyText(beside.toString("utf8"));
  if (!span) return body;
  let holder = body as Record<string, unknown>;
  const path = options.keepText!;
  for (const key of path.slice(0, -1)) holder = holder[key] as Record<string, unknown>;
  const last = path[path.length - 1]!;
  // The scanner and JSON.parse read keys alike; anything else is a body this reader does not understand.
  if (holder?.[last] !== null) throw new AppError("bad_request", `request body is not valid JSON: ${path.join(".")} could not be read`);
  const items = shape.capturedItems;
  if (options.listItems && items !== null) {
    // Only whitespace may follow the array's `]` within the value's span (the scanner does not validate).
    if (bytes.subarray(items[items.length - 1]! + 1, span.end).toString("latin1").trim() !== "") {
      throw new AppError("bad_request", `request body is not valid JSON: unexpected text after the ${path.join(".")} list`);
    }
    holder[last] = new JsonListText(bytes, items);
  } else holder[last] = new JsonText(bytes.subarray(span.start, span.end).toString("utf8"));
  return body;
}

/** Bytes scanned at once by readScannedBody (about a millisecond). */
const SCAN_SLICE_BYTES = 256 * 1024;

/** A body past its byte limit (readScannedBody). */
export class BodyTooLarge extends Error {
  constructor(readonly limitBytes: number) {
    super(`request body exceeds ${limitBytes} bytes`);
  }
}

/**
 * Reads a request body of at most `limitBytes` bytes, chunk by chunk as it arrives, pushing each chunk
 * through `shape` (so its values and depth are counted, and a captured span found, without one long
 * synchronous scan of the whole body), under readBodyBytes' budget and cut-offs. Returns the bytes.
 * Throws like readBodyBytes, and the scanner's JsonShapeError.
 */
export async function readScannedBody(request: Request, limitBytes: number, shape: JsonShapeScanner): Promise<Buffer> {
  let sinceYield = 0;
  return readBodyBytes(request, limitBytes, async (value) => {
    // In slices, the event loop free between them (timers included): a body may arrive as one
    // chunk of megabytes, or as a hundred 64 KiB chunks already buffered, whose reads resolve
    // one after another without ever leaving the microtask queue.
    for (let at = 0; at < value.byteLength; at += SCAN_SLICE_BYTES) {
      const slice = value.subarray(at, at + SCAN_SLICE_BYTES);
      if (sinceYield + slice.byteLength > SCAN_SLICE_BYTES) {
        await yieldToEventLoop();
        sinceYield = 0;
      }
      shape.push(slice);
      sinceYield += slice.byteLength;
    }
  });
}

/**
 * Reads a request body of at most `limitBytes` bytes, chunk by chunk as it arrives, handing each chunk
 * to `consume` (when given) before the next is read. The body counts against its sender's and the
 * console's bodies and bytes in flight (body-budget.ts: the bytes that arrived, not the declared
 * length) until it has been read, and must keep arriving (BODY_IDLE_MS between bytes,
 * BODY_DEADLINE_MS in all). Returns the bytes. Throws BodyTooLarge past `limitBytes` (declared or
 * read), what `consume` throws (the rest of the body cancelled), AppError `rate_limited` (429) /
 * `unavailable` (503) past the budget and `request_timeout` (408) for a stalled body — those three
 * answered with `Connection: close`, the rest of the body left unread.
 */
export async function readBodyBytes(request: Request, limitBytes: number, consume?: (chunk: Uint8Array) => Promise<void> | void): Promise<Buffer> {
  const declared = Number(request.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > limitBytes) throw new BodyTooLarge(limitBytes);
  if (!request.body) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  let reservation: BodyReservation;
  try {
    reservation = reserveBody(request);
  } catch (error) {
    throw error instanceof AppError ? closeConnectionAfter(error) : error;
  }
  const reader = request.body.getReader();
  const startedAt = performance.now();
  try {
    for (;;) {
      const { done, value } = await readWithin(reader, startedAt);
      if (done) break;
      size += value.byteLength;
      if (size > limitBytes) {
        await reader.cancel();
        throw new BodyTooLarge(limitBytes);
      }
      reservation.grow(value.byteLength);
      if (consume) {
        try {
          await consume(value);
        } catch (error) {
          await reader.cancel().catch(() => undefined);
          throw error;
        }
      }
      chunks.push(value);
    }
  } catch (error) {
    // Refused on the budget or cut off: answered at once and the connection closed, the rest unread.
    if (error instanceof AppError && (error.code === "rate_limited" || error.code === "unavailable" || error.code === "request_timeout")) throw closeConnectionAfter(error);
    throw error;
  } finally {
    reservation.release();
  }
  return Buffer.concat(chunks);
}

/**
 * The next read of a body, or AppError `request_timeout` when nothing came for BODY_IDLE_MS or the body
 * passed BODY_DEADLINE_MS since `startedAt` (performance.now() ms). The abandoned read is left to fail
 * quietly when the connection closes.
 */
async function readWithin(reader: ReadableStreamDefaultReader<Uint8Array>, startedAt: number): Promise<ReadableStreamReadResult<Uint8Array>> {
  const left = BODY_DEADLINE_MS - (performance.now() - startedAt);
  const wait = Math.min(BODY_IDLE_MS, left);
  const read = reader.read();
  let timer: NodeJS.Timeout | undefined;
  const cutOff = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new AppError(
            "request_timeout",
            wait < BODY_IDLE_MS ? `the request body did not arrive within ${BODY_DEADLINE_MS / 1000} s` : `the request body stalled: nothing arrived for ${BODY_IDLE_MS / 1000} s`,
          ),
        ),
      Math.max(0, wait),
    );
  });
  try {
    return await Promise.race([read, cutOff]);
  } catch (error) {
    read.catch(() => undefined);
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

const OVERSIZED = Symbol.for("skill-console.oversized-fields");

/** The fields of a body read with `cappedStrings` that were past their caps and were set to null, with their sizes in UTF-8 bytes ({} for none). */
export function oversizedFieldsOf(body: unknown): Record<string, number> {
  return (body !== null && typeof body === "object" ? (body as { [OVERSIZED]?: Record<string, number> })[OVERSIZED] : undefined) ?? {};
}

/** `bytes` parsed as readJsonBody's `cappedStrings` says: in the validation thread when large, here when small. */
async function parseCapped(bytes: Buffer, caps: Record<string, number>): Promise<unknown> {
  let value: unknown;
  let oversized: Record<string, number> = {};
  if (bytes.byteLength <= PARSED_BESIDE_TEXT_MAX_BYTES) {
    value = parseBodyText(bytes.toString("utf8"));
    oversized = nullOversizedStrings(value, caps);
  } else {
    const parsed = await parseJsonOffThread(bytes, caps);
    // Out of time on a loaded machine is not the sender's fault: 503, to be sent again (a worker's result is never lost).
    if (!parsed.ok && parsed.busy) throw new AppError("unavailable", `the console is too busy to read this body now (${parsed.message}); retry`, { retryAfterSeconds: 1 });
    if (!parsed.ok) throw new AppError("bad_request", `request body is not valid JSON: ${parsed.message}`);
    ({ value, oversized } = parsed);
  }
  if (Object.keys(oversized).length > 0) Object.defineProperty(value as object, OVERSIZED, { value: oversized, enumerable: false });
  return value;
}

function parseBodyText(text: string): unknown {
  if (text.trim() === "") return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new AppError("bad_request", `request body is not valid JSON: ${(error as Error).message}`);
  }
  const where = unpairedSurrogateAt(body, "");
  if (where !== null) throw new AppError("bad_request", `request body has text that is not valid Unicode at ${where || "its top level"} (an unpaired UTF-16 surrogate, such as \\ud800 alone)`);
  return body;
}

/**
 * The path (`.name`, `[2]`) of the first string or key of `value` holding an unpaired UTF-16 surrogate
 * (JSON allows `"\ud800"` alone), or null when there is none. Such text cannot be stored: Prisma's
 * query protocol failed on it ("unexpected end of hex escape", a 500 for an email, a token name, a
 * persona description, a preset name), and it is no character. The body's values are already bounded
 * (SKILL_ARGS_MAX_NODES), so the walk is too.
 */
const UNPAIRED_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function unpairedSurrogateAt(value: unknown, path: string): string | null {
  if (typeof value === "string") return UNPAIRED_SURROGATE.test(value) ? path : null;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const found = unpairedSurrogateAt(value[index], `${path}[${index}]`);
      if (found !== null) return found;
    }
    return null;
  }
  if (value === null || typeof value !== "object") return null;
  for (const [key, item] of Object.entries(value)) {
    if (UNPAIRED_SURROGATE.test(key)) return `${path}.${JSON.stringify(key)}`;
    const found = unpairedSurrogateAt(item, `${path}.${key}`);
    if (found !== null) return found;
  }
  return null;
}

function tooLarge(limitBytes: number): AppError {
  return new AppError("args_too_large", `request body exceeds ${limitBytes} bytes (SKILL_ARGS_LIMIT_BYTES)`);
}

/** Parses an optional integer query parameter; throws AppError `bad_request` when it is not one. */
export function intParam(url: URL, name: string): number | undefined {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === "") return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value)) throw new AppError("bad_request", `${name} must be an integer`);
  return value;
}

/** Returns an optional string query parameter, undefined when absent or empty. */
export function stringParam(url: URL, name: string): string | undefined {
  const raw = url.searchParams.get(name);
  return raw === null || raw === "" ? undefined : raw;
}

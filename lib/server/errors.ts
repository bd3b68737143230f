import type { ErrorBody, ErrorCode } from "@/lib/types/api";
import { databaseBusyError, databaseUnavailableError, isDatabaseBusy, isDatabaseUnavailable } from "./db-busy";
import { isHighSurrogate } from "./utf16-slices";

/** HTTP status of each error code: the one table of STYLE.md rule 3. */
export const STATUS_OF: Record<ErrorCode, number> = {
  bad_request: 400,
  invalid_args: 400,
  args_too_large: 413,
  too_large: 413,
  not_found: 404,
  approval_required: 403,
  forbidden: 403,
  conflict: 409,
  not_running: 409,
  unauthenticated: 401,
  bad_origin: 403,
  rate_limited: 429,
  request_timeout: 408,
  unavailable: 503,
  internal: 500,
};

/**
 * An error the API reports to its client: a code from the closed list, a message safe to show, and
 * optional details (e.g. ajv errors for `invalid_args`).
 */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = "AppError";
  }

  /** The HTTP status for this error's code. */
  get status(): number {
    return STATUS_OF[this.code];
  }
}

/** Longest error message an answer carries, in characters (a message may quote what the client sent). */
export const ERROR_MESSAGE_MAX_LENGTH = 2000;
/** Longest error `details` an answer carries, as JSON characters. */
export const ERROR_DETAILS_MAX_LENGTH = 64 * 1024;

/**
 * `text` cut to at most about `max` characters (never between the halves of a surrogate pair), saying
 * how much was left out: error messages and audit reasons quote names, origins and fields a client
 * sent, which may be megabytes (issue 10 point 1). Pure.
 */
export function boundedText(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = isHighSurrogate(text.charCodeAt(max - 1)) ? max - 1 : max;
  return `${text.slice(0, end)}… (${text.length - end} more characters)`;
}

/** Errors whose answer also closes the connection (closeConnectionAfter). */
const closing = new WeakSet<AppError>();

/**
 * Marks `error` so that its answer carries `Connection: close`: the request's body was left unread
 * (refused on its length, or cut off), and the connection must not wait for the rest of it. Returns `error`.
 */
export function closeConnectionAfter(error: AppError): AppError {
  closing.add(error);
  return error;
}

/** The parts of an error answer before they become a Response: status, headers and the one envelope. */
export interface ErrorAnswer {
  status: number;
  headers: Record<string, string>;
  body: ErrorBody;
}

/**
 * The one error envelope answer (STYLE.md rule 3) for `error`, as its parts: an AppError with its
 * code's status, message and details (both bounded), `Retry-After` for 503 and a timed 429,
 * `Connection: close` when marked (closeConnectionAfter); a busy or unavailable database's error as
 * 503 `unavailable`; anything else 500 `internal` (logged, never shown). Adapters that answer another
 * system's error shape (lib/server/ongrid) reshape these parts and keep the status and headers.
 */
export function errorAnswer(error: unknown): ErrorAnswer {
  // A statement or transaction the locked database refused, past its retries: 503, not 500.
  if (!(error instanceof AppError) && isDatabaseBusy(error)) error = databaseBusyError();
  // A PostgreSQL server that is down, restarting or out of connections: 503 until it is back.
  if (!(error instanceof AppError) && isDatabaseUnavailable(error)) error = databaseUnavailableError();
  if (error instanceof AppError) {
    const body: ErrorBody = { error: { code: error.code, message: boundedText(error.message, ERROR_MESSAGE_MAX_LENGTH) } };
    if (error.details !== undefined) {
      // Details quote the request (ajv's params name a property, a value): megabytes of it must not come back.
      const detailsText = JSON.stringify(error.details);
      body.error.details = detailsText !== undefined && detailsText.length > ERROR_DETAILS_MAX_LENGTH ? { omitted: `the details are ${detailsText.length} characters long; they are left out` } : error.details;
    }
    const retryAfter = (error.details as { retryAfterSeconds?: unknown } | undefined)?.retryAfterSeconds;
    const headers: Record<string, string> =
      error.code === "unavailable" || (error.code === "rate_limited" && typeof retryAfter === "number") ? { "retry-after": String(typeof retryAfter === "number" ? retryAfter : 1) } : {};
    if (closing.has(error)) headers.connection = "close";
    return { status: error.status, headers, body };
  }
  console.error("internal error:", error);
  return { status: 500, headers: {}, body: { error: { code: "internal", message: "Internal error; see the console's log." } } };
}

/** The one error envelope answer (STYLE.md rule 3) for `error` as a Response: errorAnswer's parts. */
export function errorResponse(error: unknown): Response {
  const { status, headers, body } = errorAnswer(error);
  return Response.json(body, { status, headers });
}

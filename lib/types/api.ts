/** The closed list of error codes of the HTTP contract (DESIGN.md "HTTP interface"). */
export const ERROR_CODES = [
  "bad_request",
  "invalid_args",
  "args_too_large",
  "too_large",
  "not_found",
  "approval_required",
  "forbidden",
  "conflict",
  "not_running",
  "unauthenticated",
  "bad_origin",
  "rate_limited",
  "request_timeout",
  "unavailable",
  "internal",
] as const;

/** One error code. */
export type ErrorCode = (typeof ERROR_CODES)[number];

/** The one error envelope every API error uses. */
export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: unknown };
}

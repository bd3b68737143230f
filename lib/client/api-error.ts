import type { ErrorCode } from "@/lib/types/api";

/**
 * Codes an ApiError may carry: the server's closed list (lib/types/api.ts) plus two the client adds
 * when no envelope arrived — `network` (the request never got an answer) and `bad_response` (an answer
 * that is not the JSON the contract promises).
 */
export type ApiErrorCode = ErrorCode | "network" | "bad_response";

/** One ajv error as the server sends it in `details` of an `invalid_args` error. */
export interface AjvErrorDetail {
  instancePath: string;
  message?: string;
  keyword: string;
  params?: Record<string, unknown>;
}

/**
 * An error answered by the console's API, decoded from the one error envelope
 * `{error: {code, message, details?}}` (STYLE.md rule 3). `status` is the HTTP status (0 for `network`).
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ApiErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = "ApiError";
  }

  /** The ajv errors of an `invalid_args` answer; an empty list for any other error. */
  get ajvErrors(): AjvErrorDetail[] {
    if (this.code !== "invalid_args" || !Array.isArray(this.details)) return [];
    return this.details.filter(
      (item): item is AjvErrorDetail =>
        typeof item === "object" && item !== null && typeof (item as AjvErrorDetail).keyword === "string",
    );
  }
}

/** True when `error` is an ApiError with the given code. */
export function isApiError(error: unknown, code?: ApiErrorCode): error is ApiError {
  return error instanceof ApiError && (code === undefined || error.code === code);
}

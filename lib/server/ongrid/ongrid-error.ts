/*
 * ongrid drop-in (DESIGN.md "Integrations"): our error envelope as ongrid's error body. Read from
 * github.com/ongridio/ongrid at commit 2e688933ac33ba95b46c1ebca348c4d282234446,
 * internal/manager/server/skill/http.go (errorBody `{error, code}`, errCode) and
 * internal/pkg/errs/errs.go (HTTPStatus).
 */
import type { ErrorCode } from "@/lib/types/api";
import type { OngridErrorBody, OngridErrorCode } from "@/lib/types/ongrid";
import { AppError, errorAnswer, errorResponse } from "../errors";

/**
 * ongrid's `errCode` for each of our codes: its skill handler knows `unauthorized`, `forbidden`,
 * `not-found`, `invalid` and answers `internal` for everything else (a 409 or 503 included), which its
 * clients read with the HTTP status.
 */
const ONGRID_CODE_OF: Record<ErrorCode, OngridErrorCode> = {
  unauthenticated: "unauthorized",
  forbidden: "forbidden",
  approval_required: "forbidden",
  bad_origin: "forbidden",
  not_found: "not-found",
  bad_request: "invalid",
  invalid_args: "invalid",
  args_too_large: "internal",
  too_large: "internal",
  conflict: "internal",
  not_running: "internal",
  rate_limited: "internal",
  request_timeout: "internal",
  unavailable: "internal",
  internal: "internal",
};

/**
 * Answers `error` as ongrid's skill handler does, `{error: <message>, code: <errCode>}` (plus our
 * `details` when there are some, e.g. the ajv errors of invalid params), with the status and headers
 * our envelope has (errorAnswer: 401, 403, 404, 400, 409, 413, 503 + Retry-After, 500 with no internal
 * message). Used as the execute route's `answerError`. A 401 keeps the console's own envelope (code
 * `unauthenticated`): DESIGN.md's HTTP contract says so of every `/api/v1` request, and ongrid's
 * client reacts to a 401 by its status alone (it refreshes its token, else signs out).
 */
export function ongridErrorResponse(error: unknown): Response {
  if (error instanceof AppError && error.code === "unauthenticated") return errorResponse(error);
  const { status, headers, body } = errorAnswer(error);
  const ongrid: OngridErrorBody = { error: body.error.message, code: ONGRID_CODE_OF[body.error.code] };
  if (body.error.details !== undefined) ongrid.details = body.error.details;
  return Response.json(ongrid, { status, headers });
}

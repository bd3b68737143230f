import { AppError } from "../errors";
import { refuseUnknownFields } from "../http/known-fields";

/** The body of `POST /api/v1/skills/{name}/calls` once checked. */
export interface CallRequest {
  args: unknown;
  /** The persona named in the body, or null to run under the default one (or the token's own). */
  persona: string | null;
  wait: boolean;
  /** The worker name or label the call must run on (DESIGN.md "Claiming"); null = any eligible worker. */
  target: string | null;
}

/** The fields a call request may have. */
export const CALL_REQUEST_FIELDS: readonly string[] = ["args", "persona", "wait", "target"];

/** A target: a worker name or label (the same characters WORKER_NAME and WORKER_LABELS allow). */
const TARGET_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$/;

/**
 * Checks the shape of a call request body (`{"args": {...}, "persona": "...", "target": "...", "wait":
 * true}`; an empty body means empty args, no persona, any worker, and wait). Throws AppError `bad_request` for a body that is not an
 * object, an unknown field (a typo like `argz` must not run the skill with empty args), a `wait` that is
 * not a boolean, or a persona that is not a non-empty string. Whether the persona exists is checked by
 * resolveCallPersona.
 */
export function parseCallRequest(body: unknown): CallRequest {
  if (body === undefined) return { args: {}, persona: null, wait: true, target: null };
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw new AppError("bad_request", 'the request body must be a JSON object like {"args": {...}}');
  }
  refuseUnknownFields(body, CALL_REQUEST_FIELDS, "a call request");
  const { args, persona, wait, target } = body as Record<string, unknown>;
  if (target !== undefined && target !== null && (typeof target !== "string" || !TARGET_PATTERN.test(target))) {
    throw new AppError("bad_request", "target must be a worker's name or label (letters, digits, '.', '_', ':' or '-')");
  }
  if (wait !== undefined && typeof wait !== "boolean") throw new AppError("bad_request", "wait must be a boolean");
  if (persona !== undefined && persona !== null && (typeof persona !== "string" || persona.trim() === "")) {
    throw new AppError("bad_request", "persona must be a persona's name");
  }
  return { args: args === undefined ? {} : args, persona: typeof persona === "string" ? persona.trim() : null, wait: wait ?? true, target: typeof target === "string" ? target : null };
}

import { AppError } from "../errors";
import { refuseUnknownFields } from "../http/known-fields";

/** The body of `POST /api/v1/skills/{name}/calls` once checked. */
export interface CallRequest {
  args: unknown;
  /** The persona named in the body, or null to run under the default one (or the token's own). */
  persona: string | null;
  wait: boolean;
}

/** The fields a call request may have. */
export const CALL_REQUEST_FIELDS: readonly string[] = ["args", "persona", "wait"];

/**
 * Checks the shape of a call request body (`{"args": {...}, "persona": "...", "wait": true}`; an empty
 * body means empty args, no persona and wait). Throws AppError `bad_request` for a body that is not an
 * object, an unknown field (a typo like `argz` must not run the skill with empty args), a `wait` that is
 * not a boolean, or a persona that is not a non-empty string. Whether the persona exists is checked by
 * resolveCallPersona.
 */
export function parseCallRequest(body: unknown): CallRequest {
  if (body === undefined) return { args: {}, persona: null, wait: true };
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw new AppError("bad_request", 'the request body must be a JSON object like {"args": {...}}');
  }
  refuseUnknownFields(body, CALL_REQUEST_FIELDS, "a call request");
  const { args, persona, wait } = body as Record<string, unknown>;
  if (wait !== undefined && typeof wait !== "boolean") throw new AppError("bad_request", "wait must be a boolean");
  if (persona !== undefined && persona !== null && (typeof persona !== "string" || persona.trim() === "")) {
    throw new AppError("bad_request", "persona must be a persona's name");
  }
  return { args: args === undefined ? {} : args, persona: typeof persona === "string" ? persona.trim() : null, wait: wait ?? true };
}

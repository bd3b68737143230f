import { AppError } from "../errors";

/**
 * Refuses a request body with fields outside `fields` (a typo such as `argz` must not act as if the
 * field were absent). Throws AppError `bad_request` saying, e.g., `unknown field "argz"; a call request
 * has args, persona, wait`, where `what` names the body ("a call request").
 */
export function refuseUnknownFields(body: object, fields: readonly string[], what: string): void {
  const unknown = Object.keys(body).filter((key) => !fields.includes(key));
  if (unknown.length === 0) return;
  const names = unknown.map((key) => JSON.stringify(key)).join(", ");
  throw new AppError("bad_request", `unknown field${unknown.length > 1 ? "s" : ""} ${names}; ${what} has ${fields.join(", ")}`);
}

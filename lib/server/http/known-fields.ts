import { AppError } from "../errors";

/** Most unknown fields an error names. */
const MAX_NAMED = 10;

/**
 * Refuses a request body with fields outside `fields` (a typo such as `argz` must not act as if the
 * field were absent). Throws AppError `bad_request` saying, e.g., `unknown field "argz"; a call request
 * has args, persona, wait`, where `what` names the body ("a call request"); at most MAX_NAMED names,
 * each cut to 100 characters.
 */
export function refuseUnknownFields(body: object, fields: readonly string[], what: string): void {
  const unknown = Object.keys(body).filter((key) => !fields.includes(key));
  if (unknown.length === 0) return;
  // Named at most MAX_NAMED, each cut short: the body may have 100,000 keys of kilobytes each.
  const names = unknown
    .slice(0, MAX_NAMED)
    .map((key) => JSON.stringify(key.length > 100 ? `${key.slice(0, 100)}…` : key))
    .join(", ");
  const more = unknown.length > MAX_NAMED ? ` and ${unknown.length - MAX_NAMED} more` : "";
  throw new AppError("bad_request", `unknown field${unknown.length > 1 ? "s" : ""} ${names}${more}; ${what} has ${fields.join(", ")}`);
}

import type { Identity } from "@/lib/types/identity";
import { AppError } from "../errors";

/**
 * How the audit trail names who acted (AuditEvent.actor): a person's email, or
 * `token:<name> (<owner email>)` for an agent's API token.
 */
export function auditActor(identity: Identity): string {
  return identity.token ? `token:${identity.token.name} (${identity.email})` : identity.email;
}

/**
 * Refuses an agent where the rules want a person (issue 4 brief: confirm, sign and deny come from a
 * person signed in to the console). Throws AppError `forbidden` (403) "a person must <what>; API tokens
 * cannot" for a token's request.
 */
export function requirePerson(identity: Identity, what: string): void {
  if (identity.via !== "session") throw new AppError("forbidden", `a person must ${what}; API tokens cannot`);
}

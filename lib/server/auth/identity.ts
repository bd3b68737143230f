import { isRole, roleAtLeast, type Identity, type Role } from "@/lib/types/identity";
import { AppError } from "../errors";
import { identifyToken } from "./api-tokens";
import { consoleAuth } from "./better-auth";

/** The bearer token of a request, "" for an Authorization header that is not `Bearer <token>`, or null without one. */
function bearerToken(request: Request): string | null {
  const header = request.headers.get("authorization");
  if (header === null) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : "";
}

/**
 * Who sent a request (issue 4 point 1): an `Authorization: Bearer <token>` header names an agent's
 * API token (a bad or revoked token is refused outright, never replaced by the cookie); otherwise the
 * session cookie names a person (Better Auth's database session, so sign-out and revocation take
 * effect at once). Returns the Identity, or null when the request carries neither. Throws AppError
 * `unauthenticated` for an Authorization header that is malformed or names no live token.
 */
export async function identify(request: Request): Promise<Identity | null> {
  const token = bearerToken(request);
  if (token !== null) {
    const identity = token === "" ? null : await identifyToken(token);
    if (!identity) throw new AppError("unauthenticated", "the API token is invalid or revoked");
    return identity;
  }
  if (!request.headers.get("cookie")) return null;
  const session = await consoleAuth().api.getSession({ headers: request.headers });
  if (!session) return null;
  const user = session.user as typeof session.user & { role?: unknown };
  return {
    userId: user.id,
    email: user.email,
    name: user.name,
    role: isRole(user.role) ? user.role : "viewer",
    via: "session",
    token: null,
  };
}

/**
 * Whether `request`'s credentials still name `identity`'s person with at least the `minimum` role,
 * identified afresh (identify()): false once the session ended, the token was revoked, or the person
 * was demoted below `minimum` (a long-lived event stream re-checks with it; lib/server/http/event-streams.ts).
 * Throws what identify() throws but `unauthenticated` (which answers false), e.g. AppError `unavailable`.
 */
export async function identityHolds(request: Request, identity: Identity, minimum: Role): Promise<boolean> {
  let now: Identity | null;
  try {
    now = await identify(request);
  } catch (error) {
    if (error instanceof AppError && error.code === "unauthenticated") return false;
    throw error;
  }
  return now !== null && now.userId === identity.userId && roleAtLeast(now.role, minimum);
}

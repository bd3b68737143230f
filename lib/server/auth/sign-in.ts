import { isRole, type ConsoleUser } from "@/lib/types/identity";
import { BUSY_RETRY_AFTER_SECONDS } from "../db-busy";
import { AppError } from "../errors";
import { consoleAuth } from "./better-auth";
import { reserveLoginAttempt } from "./login-limit";
import { normaliseEmail } from "./users";
import { recordAudit } from "../audit/audit-trail";
import { accessChanged } from "./access-changes";

/** The answer of a successful sign-in: the person, and the Set-Cookie headers of their new session. */
export interface SignInResult {
  user: ConsoleUser;
  setCookies: string[];
}

/**
 * Signs a person in with email and password (`POST /api/v1/auth/login`; issue 4 point 1) through
 * Better Auth, which creates a revocable database session and answers its cookie. `address` is the
 * client's address for the rate limit: the attempt is counted before the password is checked (a burst
 * gets no more checks than the limit) and taken back when it succeeds; a refused attempt throws
 * `rate_limited` (429) before the password is checked; a wrong email or password counts as a failure and throws `unauthenticated`
 * (401) with the same message either way (no account probing). Returns the user and the cookies.
 */
export async function signIn(input: { email: unknown; password: unknown }, address: string, headers: Headers): Promise<SignInResult> {
  const email = normaliseEmail(input.email);
  if (typeof input.password !== "string" || input.password === "") throw new AppError("bad_request", "password must be a non-empty string");
  const attempt = await reserveLoginAttempt(email, address);
  let response: Response;
  try {
    response = await consoleAuth().api.signInEmail({ body: { email, password: input.password }, headers, asResponse: true });
  } catch {
    response = new Response(null, { status: 401 });
  }
  if (!response.ok) {
    await recordAudit({ action: "auth.login_failed", actor: email, details: { address } });
    throw new AppError("unauthenticated", "wrong email or password");
  }
  await attempt.succeeded();
  const body = (await response.json()) as { user: { id: string; email: string; name: string; role?: unknown; createdAt: string | Date } };
  await recordAudit({ action: "auth.login", actor: body.user.email, actorId: body.user.id, details: { address } });
  return {
    user: {
      id: body.user.id,
      email: body.user.email,
      name: body.user.name,
      role: isRole(body.user.role) ? body.user.role : "viewer",
      createdAt: new Date(body.user.createdAt).toISOString(),
    },
    setCookies: response.headers.getSetCookie(),
  };
}

/**
 * Ends the session of a request (`POST /api/v1/auth/logout`): deletes it from the database. Returns the
 * Set-Cookie headers that clear the cookie. Better Auth answers a sign-out whose deletion failed (a
 * busy database) as if it had worked, the session still valid; so the session is looked up again
 * afterwards, and one still there throws AppError `unavailable` (503 with Retry-After: try again)
 * rather than telling the person they are signed out.
 */
export async function signOut(headers: Headers): Promise<string[]> {
  const before = await consoleAuth().api.getSession({ headers });
  const response = await consoleAuth().api.signOut({ headers, asResponse: true });
  const cleared = response.headers.getSetCookie();
  if (await consoleAuth().api.getSession({ headers })) {
    throw new AppError("unavailable", `the session could not be ended (is the database busy?); you are still signed in; retry in ${BUSY_RETRY_AFTER_SECONDS} s`, { retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS });
  }
  // The session's open event streams end now, not at their next heartbeat.
  if (before) accessChanged(before.user.id);
  return cleared;
}

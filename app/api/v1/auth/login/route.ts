import { clientAddress } from "@/lib/server/auth/client-address";
import { signIn } from "@/lib/server/auth/sign-in";
import { AppError, errorResponse } from "@/lib/server/errors";
import { publicApiRoute, readJsonBody } from "@/lib/server/http/api-route";
import { checkRequestBody } from "@/lib/server/http/request-body";
import { SIGN_IN_SCHEMA } from "@/lib/validation/auth-requests";

/**
 * `POST /api/v1/auth/login` `{email, password}` → 200 `{user}` with the session cookie set; 400 for a
 * malformed body, 401 `unauthenticated` for a wrong email or password, 429 `rate_limited` with
 * `Retry-After` (seconds) after too many failures of this account from this address (issue 4 point 1).
 */
export const POST = publicApiRoute(async (request: Request) => {
  const raw = await readJsonBody(request, 16 * 1024);
  const body = checkRequestBody(raw ?? null, SIGN_IN_SCHEMA, { what: "a sign-in request", shape: 'the body must be {"email": "...", "password": "..."}' });
  try {
    const { user, setCookies } = await signIn(body as { email: unknown; password: unknown }, clientAddress(request), request.headers);
    const headers = new Headers();
    for (const cookie of setCookies) headers.append("set-cookie", cookie);
    return Response.json({ user }, { headers });
  } catch (error) {
    if (error instanceof AppError && error.code === "rate_limited") {
      const response = errorResponse(error);
      response.headers.set("retry-after", String((error.details as { retryAfterSeconds: number }).retryAfterSeconds));
      return response;
    }
    throw error;
  }
});

import { NextResponse, type NextRequest } from "next/server";
import { REQUEST_PATH_HEADER } from "@/components/layout/request-path";
import { loginPathFor } from "@/lib/client/safe-next-path";

/**
 * Names of the session cookie (lib/server/auth/better-auth.ts COOKIE_PREFIX "skill-console"; Better Auth
 * adds `__Secure-` when CONSOLE_SECURE_COOKIES is set).
 */
const SESSION_COOKIES = ["skill-console.session_token", "__Secure-skill-console.session_token"];

/**
 * Runs before every page (issue 4 point 1: pages redirect to the login page). Records the page's path
 * and query in a request header for the console layout, which validates the session for real and
 * redirects to `/login?next=…` itself; a request with neither a session cookie nor an Authorization
 * header is sent to the login page here already, without rendering anything. The API (which answers
 * 401 JSON itself), Next.js assets and the icon are not matched.
 */
export function proxy(request: NextRequest) {
  const { pathname, search } = request.nextUrl;
  const mayBeSignedIn = SESSION_COOKIES.some((name) => request.cookies.has(name)) || request.headers.has("authorization");
  if (!mayBeSignedIn && pathname !== "/login") {
    const [loginPath, loginQuery] = loginPathFor(`${pathname}${search}`).split("?");
    const target = request.nextUrl.clone();
    target.pathname = loginPath ?? "/login";
    target.search = loginQuery ? `?${loginQuery}` : "";
    return NextResponse.redirect(target);
  }
  const forwarded = new Headers(request.headers);
  forwarded.set(REQUEST_PATH_HEADER, `${pathname}${search}`);
  return NextResponse.next({ request: { headers: forwarded } });
}

/** Pages only: not /api (401 JSON there), not Next.js build output or image optimisation, not the icon. */
export const config = {
  matcher: ["/((?!api(?:/|$)|_next/static|_next/image|favicon\\.ico|icon\\.svg|robots\\.txt).*)"],
};

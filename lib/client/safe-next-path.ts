/** Where a person lands after signing in when no (usable) `next` was given. */
export const DEFAULT_AFTER_LOGIN = "/";

/**
 * The console-relative path to go to after signing in, from the login page's `next` query parameter
 * (issue 4 point 1). Only a same-site path is accepted: it must start with a single "/" (never "//host",
 * "/\host" or an absolute URL, which would make the login page an open redirect), contain no control
 * characters, and not lead back to /login. Returns the path with its query and hash, or "/" otherwise.
 * Universal: used by the login page (server) and its form (browser).
 */
export function safeNextPath(next: string | string[] | null | undefined): string {
  const value = Array.isArray(next) ? next[0] : next;
  if (typeof value !== "string" || !value.startsWith("/")) return DEFAULT_AFTER_LOGIN;
  // Browsers read "\" as "/" in URLs, so "/\evil.example" would leave the site like "//evil.example".
  if (value.startsWith("//") || value.startsWith("/\\")) return DEFAULT_AFTER_LOGIN;
  if (/[\u0000-\u001f\u007f]/.test(value)) return DEFAULT_AFTER_LOGIN;
  const base = "http://console.invalid";
  let url: URL;
  try {
    url = new URL(value, base);
  } catch {
    return DEFAULT_AFTER_LOGIN;
  }
  if (url.origin !== base) return DEFAULT_AFTER_LOGIN;
  if (url.pathname === "/login" || url.pathname.startsWith("/login/")) return DEFAULT_AFTER_LOGIN;
  return `${url.pathname}${url.search}${url.hash}`;
}

/** The login page's address that brings a person back to `path` (a console path with its query) after signing in. */
export function loginPathFor(path: string): string {
  const next = safeNextPath(path);
  return next === DEFAULT_AFTER_LOGIN ? "/login" : `/login?next=${encodeURIComponent(next)}`;
}

import { headers } from "next/headers";
import "server-only";
import { identify } from "./identity";
import { ensureConsoleStarted } from "../console-startup";
import type { Identity } from "@/lib/types/identity";
import { REQUEST_PATH_HEADER } from "@/components/layout/request-path";

/**
 * Who is viewing the page being rendered (server components only; issue 4 point 1: every page needs a
 * session or an API token): reads the request's headers, waits for console start-up, then asks identify() with the request's
 * headers — the same check the API makes, so a revoked session or token counts as none. Returns the
 * Identity, or null when signed out (a bad bearer token is also null: the page then offers the login).
 */
export async function currentIdentity(): Promise<Identity | null> {
  // headers() first: while `next build` prerenders pages it ends the render here (the page is dynamic),
  // before anything could start the console — which would create the first admin and print its
  // password into the build log, write ./data and scan skills at build time.
  const requestHeaders = await headers();
  await ensureConsoleStarted();
  try {
    return await identify(new Request("http://console.invalid/", { headers: new Headers(requestHeaders) }));
  } catch {
    return null;
  }
}

/** The path and query of the page being rendered, as proxy.ts recorded it; "/" when unknown. */
export async function currentPath(): Promise<string> {
  return (await headers()).get(REQUEST_PATH_HEADER) ?? "/";
}

import { randomBytes } from "node:crypto";
import { request as playwrightRequest, type APIRequestContext, type Browser, type BrowserContext } from "@playwright/test";
import type { Role } from "../../lib/types/identity";

/** A person created for a test: sign in with `email` and `password`. */
export interface E2EPerson {
  email: string;
  password: string;
  role: Role;
}

/**
 * Creates a person with `role` through `POST /api/v1/users`, sent by `request` — the test's `request`
 * fixture, signed in as the admin by the config's storage state and sending an Origin equal to baseURL.
 * `name` (default the role) starts the email; a random suffix keeps emails unique across tests and
 * retries. Returns the email, password and role; throws with the answer when the console refuses.
 */
export async function createPerson(request: APIRequestContext, role: Role, name: string = role): Promise<E2EPerson> {
  const suffix = randomBytes(4).toString("hex");
  const email = `${name}-${suffix}@console.local`;
  const password = `e2e-password-${suffix}-${randomBytes(6).toString("hex")}`;
  const response = await request.post("/api/v1/users", { data: { email, password, role } });
  if (response.status() !== 201) throw new Error(`creating ${email} failed: ${response.status()} ${await response.text()}`);
  return { email, password, role };
}

/**
 * Opens a new browser context signed in as `email` (STYLE.md: log in through the API, not the form):
 * signs in with `POST /api/v1/auth/login` from a fresh request context and starts the browser context
 * from that answer's session cookie. Every request of the context sends Origin = `baseURL`, like the
 * default context of the suite. Returns the context (close it at the end of the test); throws with the
 * answer when the sign-in fails.
 */
export async function signInPage(browser: Browser, baseURL: string, email: string, password: string): Promise<BrowserContext> {
  const api = await playwrightRequest.newContext({ baseURL, storageState: { cookies: [], origins: [] } });
  try {
    const response = await api.post("/api/v1/auth/login", { data: { email, password }, headers: { origin: baseURL } });
    if (response.status() !== 200) throw new Error(`sign-in of ${email} failed: ${response.status()} ${await response.text()}`);
    return await browser.newContext({ baseURL, storageState: await api.storageState(), extraHTTPHeaders: { origin: baseURL } });
  } finally {
    await api.dispose();
  }
}

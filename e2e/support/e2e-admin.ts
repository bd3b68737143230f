import path from "node:path";

/**
 * The first admin of every end-to-end console: playwright.config.ts hands these to the server as
 * CONSOLE_ADMIN_EMAIL / CONSOLE_ADMIN_PASSWORD, and e2e/auth.setup.ts signs in with them. Each run starts
 * from a fresh database (e2e/reset-database.mjs), so the admin is created on that server's first start.
 */
export const E2E_ADMIN = { email: "admin@console.local", password: "e2e-admin-password-0123" } as const;

/** CONSOLE_AUTH_SECRET of the end-to-end console (a fixed test value, at least 32 characters). */
export const E2E_AUTH_SECRET = "e2e-auth-secret-of-the-skill-console-0123456789";

/** LOGIN_MAX_FAILURES of the end-to-end console (its default), for e2e/client-address.spec.ts. */
export const E2E_LOGIN_MAX_FAILURES = 5;

/**
 * Where e2e/auth.setup.ts saves the admin's signed-in storage state, per port so concurrent runs in one
 * checkout never share a session (git-ignored, e2e/.auth/).
 */
export function adminStorageState(port: number | string): string {
  return path.join(__dirname, "..", ".auth", `admin-${port}.json`);
}

import { expect, test as setup } from "@playwright/test";
import { adminStorageState, E2E_ADMIN } from "./support/e2e-admin";

/**
 * Setup project of the suite (playwright.config.ts): signs the first admin in through
 * `POST /api/v1/auth/login` (STYLE.md: log in through the API) and saves the session cookie as the
 * storage state every other spec starts from, so pages and the `request` fixture act as that admin.
 */
setup("sign in as the first admin", async ({ request, baseURL }) => {
  const response = await request.post("/api/v1/auth/login", { data: E2E_ADMIN, headers: { origin: baseURL! } });
  expect(response.status(), await response.text()).toBe(200);
  const session = await request.get("/api/v1/auth/session");
  expect(((await session.json()) as { identity: { email: string; role: string } }).identity).toMatchObject({ email: E2E_ADMIN.email, role: "admin" });
  await request.storageState({ path: adminStorageState(new URL(baseURL!).port) });
});

import { expect, test } from "@playwright/test";
import { createPerson, signInPage } from "./support/people";

/** The people helpers of e2e/support/people.ts, which multi-person specs (approvals) build on. */
test("signInPage opens a browser context signed in as a person createPerson made", async ({ browser, request, baseURL }) => {
  const viewer = await createPerson(request, "viewer");
  const context = await signInPage(browser, baseURL!, viewer.email, viewer.password);
  try {
    const who = await context.request.get("/api/v1/auth/session");
    expect(who.status()).toBe(200);
    expect(((await who.json()) as { identity: unknown }).identity).toMatchObject({ email: viewer.email, role: "viewer", via: "session" });
    const page = await context.newPage();
    await page.goto("/skills");
    await expect(page).toHaveURL(/\/skills$/);
    await expect(page.getByRole("heading", { level: 2, name: "system", exact: true })).toBeVisible();
  } finally {
    await context.close();
  }
});

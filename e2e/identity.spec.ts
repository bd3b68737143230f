import { randomBytes } from "node:crypto";
import { expect, test } from "@playwright/test";
import { E2E_ADMIN } from "./support/e2e-admin";
import { createPerson, signInPage } from "./support/people";

/**
 * The identity side of the pages (issue 4 point 1): the login page, redirects of signed-out visitors,
 * sign-out, role-dependent navigation, the Tokens, Users and Audit pages. Signing out ends a session,
 * so those tests use sessions of their own, never the suite's shared admin storage state.
 */

const SIGNED_OUT = { cookies: [], origins: [] };

test("a signed-out visitor signs in through the form, lands on the page asked for, and signs out", async ({ browser, baseURL }) => {
  const context = await browser.newContext({ baseURL, storageState: SIGNED_OUT });
  const page = await context.newPage();
  try {
    await page.goto("/calls?status=failed");
    await expect(page).toHaveURL(/\/login\?next=%2Fcalls%3Fstatus%3Dfailed$/);
    await expect(page.getByLabel("Email")).toBeFocused();

    await page.getByLabel("Email").fill(E2E_ADMIN.email);
    await page.getByLabel("Password").fill("not-the-password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByText("Wrong email or password.")).toBeVisible();

    await page.getByLabel("Password").fill(E2E_ADMIN.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).toHaveURL(/\/calls\?status=failed$/);
    await expect(page.getByTestId("signed-in-as")).toContainText(E2E_ADMIN.email);
    await expect(page.getByTestId("signed-in-as")).toContainText("admin");

    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page).toHaveURL(/\/login$/);
    expect((await page.request.get("/api/v1/auth/session")).status()).toBe(401);
    await page.goto("/tokens");
    await expect(page).toHaveURL(/\/login\?next=%2Ftokens$/);
  } finally {
    await context.close();
  }
});

test("the login page never redirects off the site and sends a signed-in person on", async ({ page }) => {
  await page.goto("/login?next=//evil.example/phish");
  await expect(page).toHaveURL(/\/skills$/);
  await page.goto("/login?next=%2Faudit");
  await expect(page).toHaveURL(/\/audit$/);
});

test("a viewer sees no Users link, and the Users and Tokens pages say why", async ({ browser, baseURL, request }) => {
  const viewer = await createPerson(request, "viewer");
  const context = await signInPage(browser, baseURL!, viewer.email, viewer.password);
  const page = await context.newPage();
  try {
    await page.goto("/skills");
    const nav = page.getByRole("navigation", { name: "Main" });
    await expect(nav.getByRole("link", { name: "Audit" })).toBeVisible();
    await expect(nav.getByRole("link", { name: "Users" })).toHaveCount(0);
    await page.goto("/users");
    await expect(page.getByText("Admins only")).toBeVisible();
    await page.goto("/tokens");
    await expect(page.getByText("Tokens need the operator role")).toBeVisible();
  } finally {
    await context.close();
  }
});

test("an admin creates a person and an API token, then revokes the token", async ({ page, request }) => {
  const suffix = randomBytes(3).toString("hex");
  const email = `made-in-ui-${suffix}@console.local`;
  await page.goto("/users");
  await page.getByLabel("Email").fill(`made-in-ui-${suffix}@localhost`);
  await page.getByLabel("Password").fill(`ui-password-${suffix}-long`);
  await page.getByRole("button", { name: "Create person" }).click();
  // The browser takes an address without a dotted domain; the server answers 400 and the page says why.
  await expect(page.getByText("The person was not created")).toBeVisible();
  await expect(page.getByText(/is not an address like/)).toBeVisible();
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(`ui-password-${suffix}-long`);
  await page.getByLabel("Role", { exact: true }).selectOption("operator");
  await page.getByRole("button", { name: "Create person" }).click();
  await expect(page.getByText(`${email} can now sign in.`)).toBeVisible();
  await expect(page.getByLabel(`Role of ${email}`)).toHaveValue("operator");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(`ui-password-${suffix}-again`);
  await page.getByRole("button", { name: "Create person" }).click();
  await expect(page.getByText(/already exists/)).toBeVisible();

  const name = `e2e-token-${suffix}`;
  await page.goto("/tokens");
  await page.getByLabel("Name").fill(name);
  await expect(page.getByLabel("Persona")).toHaveValue("default");
  await page.getByRole("button", { name: "Create token" }).click();
  const box = page.getByLabel("New API token");
  await expect(box).not.toHaveValue("");
  await expect(page.getByText("it will not be shown again")).toBeVisible();
  const token = await box.inputValue();
  expect((await request.get("/api/v1/auth/session", { headers: { authorization: `Bearer ${token}` } })).status()).toBe(200);

  await page.getByRole("button", { name: `Revoke token ${name}` }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Revoke" }).click();
  await expect(page.getByRole("row", { name: new RegExp(name) }).getByText("revoked")).toBeVisible();
  expect((await request.get("/api/v1/auth/session", { headers: { authorization: `Bearer ${token}` } })).status()).toBe(401);
});

test("the audit page lists sign-ins and filters by call", async ({ page }) => {
  await page.goto("/audit");
  await expect(page.getByRole("table", { name: /Audit entries/ }).getByText("auth.login").first()).toBeVisible();
  await page.getByLabel("Call ID").fill("no-such-call");
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page).toHaveURL(/\/audit\?callId=no-such-call$/);
  await expect(page.getByText("No entries for this call")).toBeVisible();
});

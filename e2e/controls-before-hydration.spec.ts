import { expect, test, type Page } from "@playwright/test";
import { createPerson } from "./support/people";

/**
 * Form controls of a server-rendered page before React has hydrated it. The browser shows and accepts
 * input as soon as the HTML arrives; until the page's scripts run, what is typed there is not in React's
 * state (the field keeps showing it, but the form sends what React holds, or a re-render wipes it) and a
 * submit button has no handler (the browser submits the form itself: a GET with every field, password
 * included, in the address). Each test holds the page's JavaScript chunks back, acts on the page, then
 * releases them: no control may be usable before hydration, and every one is once the page is live.
 */

const SIGNED_OUT = { cookies: [], origins: [] };

/** A control that a person could type into, pick or press. */
const ENABLED_CONTROLS = ":is(input, select, textarea, button):enabled";

/**
 * Holds back every script under /_next/static (the page's JavaScript chunks) until the returned
 * function is called, so the page stays as the server rendered it; other files go through at once.
 */
async function holdScripts(page: Page): Promise<() => void> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  await page.route("**/_next/static/**", async (route) => {
    if (route.request().resourceType() === "script") await released;
    await route.continue();
  });
  return release;
}

/** Every address `page` navigates its main frame to, in order. */
function navigations(page: Page): string[] {
  const seen: string[] = [];
  page.on("request", (request) => {
    if (request.isNavigationRequest() && request.frame() === page.mainFrame()) seen.push(request.url());
  });
  return seen;
}

/** Console pages with a form the server renders (their field that must work once live), and pages without one. */
const PAGES: { path: string; field?: string }[] = [
  { path: "/skills", field: "#skill-filter" },
  { path: "/skills/form_scalars" },
  { path: "/calls", field: "#calls-filter-skill" },
  { path: "/approvals" },
  { path: "/personas" },
  { path: "/secrets", field: 'input[type="password"]' },
  { path: "/tokens", field: "#token-name" },
  { path: "/users", field: "#user-email" },
  { path: "/webhooks", field: "#webhook-url" },
  { path: "/workers", field: "#worker-token-name" },
  { path: "/packs", field: 'input[placeholder="/srv/packs/ops-tools"]' },
  { path: "/loader" },
  { path: "/audit", field: "#audit-filter-actor" },
];

test("no control of a console page can be used before the page has hydrated, and each works once it has", async ({ context }) => {
  test.setTimeout(180_000);
  for (const { path, field } of PAGES) {
    const page = await context.newPage();
    const release = await holdScripts(page);
    await page.goto(path, { waitUntil: "domcontentloaded" });
    await expect(page.getByRole("button", { name: "Sign out" }), path).toBeAttached();
    await expect(page.locator(ENABLED_CONTROLS), `${path} before hydration`).toHaveCount(0);

    release();
    await expect(page.getByRole("button", { name: "Sign out" }), path).toBeEnabled();
    if (field) await expect(page.locator(field), path).toBeEnabled();
    await page.close();
  }
});

test("sign-in: keys pressed before hydration are not taken, the form is not submitted natively, and Email takes focus once live", async ({ browser, baseURL, request }) => {
  const person = await createPerson(request, "viewer", "early-sign-in");
  const context = await browser.newContext({ baseURL, storageState: SIGNED_OUT });
  const page = await context.newPage();
  try {
    const visited = navigations(page);
    const release = await holdScripts(page);
    await page.goto("/login", { waitUntil: "domcontentloaded" });
    const email = page.getByLabel("Email");
    const password = page.getByLabel("Password");
    // Soft: without them the test goes on to show what the keys below would do.
    await expect.soft(email).toBeDisabled();
    await expect.soft(page.getByRole("button", { name: "Sign in" })).toBeDisabled();
    // What a fast person does on a slow link: click each field, type, press Enter.
    await email.click({ force: true });
    await page.keyboard.type(person.email);
    await password.click({ force: true });
    await page.keyboard.type(person.password);
    await page.keyboard.press("Enter");

    release();
    await expect(email).toBeEnabled();
    await expect(email).toBeFocused();
    await expect(email).toHaveValue("");
    await expect(password).toHaveValue("");
    expect(visited).toEqual([`${baseURL}/login`]);

    await email.fill(person.email);
    await password.fill(person.password);
    const login = page.waitForRequest((candidate) => candidate.method() === "POST" && new URL(candidate.url()).pathname === "/api/v1/auth/login");
    await password.press("Enter");
    expect((await login).postDataJSON()).toEqual({ email: person.email, password: person.password });
    await expect(page).toHaveURL(/\/skills$/);
    expect(visited.filter((address) => address.includes(person.password))).toEqual([]);
  } finally {
    await context.close();
  }
});

test("users: Create person pressed before hydration sends nothing; once live it sends exactly what the fields show", async ({ page, baseURL }) => {
  const visited = navigations(page);
  const release = await holdScripts(page);
  await page.goto("/users", { waitUntil: "domcontentloaded" });
  const email = page.getByLabel("Email");
  const create = page.getByRole("button", { name: "Create person" });
  await expect.soft(email).toBeDisabled();
  await expect.soft(create).toBeDisabled();
  await email.click({ force: true });
  await page.keyboard.type("early-user@console.local");
  await page.getByLabel("Password (at least 12 characters)").click({ force: true });
  await page.keyboard.type("early-user-password-0123");
  await create.click({ force: true });

  release();
  await expect(create).toBeEnabled();
  await expect(email).toHaveValue("");
  expect(visited).toEqual([`${baseURL}/users`]);

  const address = `early-user-${Date.now()}@console.local`;
  await email.fill(address);
  await page.getByLabel("Password (at least 12 characters)").fill("early-user-password-0123");
  await page.locator("#user-role").selectOption("operator");
  const sent = page.waitForRequest((candidate) => candidate.method() === "POST" && new URL(candidate.url()).pathname === "/api/v1/users");
  await create.click();
  expect((await sent).postDataJSON()).toEqual({ email: address, password: "early-user-password-0123", role: "operator" });
  await expect(page.getByText(address).first()).toBeVisible();
  expect(visited).toEqual([`${baseURL}/users`]);
});

test("tokens: a name typed before hydration is either refused there or kept, shown and sent", async ({ page }) => {
  const release = await holdScripts(page);
  await page.goto("/tokens", { waitUntil: "domcontentloaded" });
  const name = page.locator("#token-name");
  const taken = await name.isEnabled();
  await name.click({ force: true });
  await page.keyboard.type("early-token");

  release();
  // The personas arrive after hydration and the form renders again with them.
  await expect(page.locator("#token-persona")).toHaveValue("default");
  await expect(page.locator("#token-persona")).toBeEnabled();
  await expect(name).toHaveValue(taken ? "early-token" : "");

  const tokenName = `early-token-${Date.now()}`;
  await name.fill(tokenName);
  const sent = page.waitForRequest((candidate) => candidate.method() === "POST" && new URL(candidate.url()).pathname === "/api/v1/tokens");
  await page.getByRole("button", { name: "Create token" }).click();
  expect((await sent).postDataJSON()).toEqual({ name: tokenName, persona: "default" });
});

test("skill page: the run panel appears only once the page is live, and Run sends exactly what was typed", async ({ page }) => {
  const release = await holdScripts(page);
  await page.goto("/skills/form_scalars", { waitUntil: "domcontentloaded" });
  await expect(page.getByRole("button", { name: "Sign out" })).toBeAttached();
  await expect(page.getByRole("button", { name: "Run", exact: true })).toHaveCount(0);
  await expect(page.locator(ENABLED_CONTROLS)).toHaveCount(0);

  release();
  const note = page.getByLabel("Note", { exact: true });
  await note.fill("typed as soon as the field showed");
  const sent = page.waitForRequest((candidate) => candidate.method() === "POST" && new URL(candidate.url()).pathname === "/api/v1/skills/form_scalars/calls");
  await page.getByRole("button", { name: "Run", exact: true }).click();
  expect(((await sent).postDataJSON() as { args: unknown }).args).toEqual({ note: "typed as soon as the field showed", count: 10 });
});

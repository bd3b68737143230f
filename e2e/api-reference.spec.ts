import { expect, test, type Page } from "@playwright/test";
import { createPerson, signInPage } from "./support/people";

/**
 * The API reference page (DESIGN.md "Pages", "Integrations"): rendered from GET /api/v1/openapi.json,
 * grouped by tag, each operation with method, path, auth, parameters, request body schema and
 * responses; a filter box; open to any signed-in person, from the main navigation; usable at 390 px.
 */

async function expectWithinWidth(page: Page, width: number): Promise<void> {
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
}

test("a viewer opens it from the navigation and reads an operation's method, path, auth, parameters, body schema and responses", async ({ browser, baseURL, request }) => {
  const viewer = await createPerson(request, "viewer", "reference-reader");
  const context = await signInPage(browser, baseURL!, viewer.email, viewer.password);
  const page = await context.newPage();
  await page.goto("/skills");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "API reference" }).click();
  await expect(page).toHaveURL(/\/api-reference$/);
  await expect(page.getByRole("heading", { level: 1, name: "API reference" })).toBeVisible();
  for (const tag of ["Skills", "Calls", "Approvals", "Worker protocol"]) await expect(page.getByRole("heading", { level: 2, name: tag, exact: true })).toBeVisible();

  const run = page.getByRole("article", { name: "POST /api/v1/skills/{name}/calls" });
  await expect(run.getByText("POST", { exact: true })).toBeVisible();
  await expect(run.getByText("Run a skill")).toBeVisible();
  await expect(run.getByText("operator and above")).toBeVisible();
  await expect(run.getByRole("listitem").filter({ hasText: /^name \(path, string, required\)$/ })).toBeVisible();
  await expect(run.getByRole("listitem").filter({ hasText: "413" })).toHaveText(/413\s*args past SKILL_ARGS_LIMIT_BYTES · Error \(application\/json\)/);
  await run.getByText("application/json schema").click();
  const schema = run.getByLabel("Request body schema (application/json)");
  await expect(schema).toContainText('"additionalProperties": false');
  await expect(schema).toContainText('"wait"');

  await expect(page.getByRole("article", { name: "POST /api/v1/workers/register" }).getByText("worker token")).toBeVisible();
  await context.close();
});

test("the filter box narrows the operations, says how many, and offers to clear a filter that matches nothing", async ({ page }) => {
  await page.goto("/api-reference");
  const filter = page.getByRole("searchbox", { name: "Filter" });
  await filter.fill("worker-tokens");
  await expect(page.getByTestId("api-operation")).toHaveCount(3);
  await expect(page.getByTestId("api-operation-count")).toHaveText(/^3 of \d+ operations$/);
  await expect(page.getByRole("article", { name: "DELETE /api/v1/worker-tokens/{id}" })).toBeVisible();
  await expect(page.getByRole("heading", { level: 2 })).toHaveText(["Workers"]);

  await filter.fill("no-such-route");
  await expect(page.getByText("No operation matches")).toBeVisible();
  await page.getByRole("button", { name: "Clear the filter" }).click();
  await expect(filter).toHaveValue("");
  await expect(page.getByRole("article", { name: "GET /api/v1/openapi.json" })).toBeVisible();
});

test.describe("at 390 px", () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test("does not scroll sideways, long paths and schemas included", async ({ page }) => {
    await page.goto("/api-reference");
    const finish = page.getByRole("article", { name: "POST /api/v1/workers/{id}/calls/{callId}/finish" });
    await finish.getByText("application/json schema").click();
    await expect(finish.getByLabel("Request body schema (application/json)")).toBeVisible();
    await expectWithinWidth(page, 390);
  });
});

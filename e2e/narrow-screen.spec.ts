import { expect, test, type Page } from "@playwright/test";

/**
 * At a phone's width (390 px) the pages an operator needs on call stay usable: nothing scrolls
 * sideways, every section of the main navigation is on screen, and a skill's Run button is reachable.
 */
const WIDTH = 390;

async function expectWithinWidth(page: Page): Promise<void> {
  const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(scrollWidth).toBeLessThanOrEqual(WIDTH);
}

test.use({ viewport: { width: WIDTH, height: 844 } });

test("the main navigation shows every section on screen", async ({ page }) => {
  await page.goto("/skills");
  const links = page.getByRole("navigation", { name: "Main" }).getByRole("link");
  await expect(links.first()).toBeVisible();
  const names = await links.allTextContents();
  expect(names.map((name) => name.replace(/\d+$/, "").trim())).toEqual(expect.arrayContaining(["Skills", "Calls", "Approvals", "Personas", "Tokens", "Audit", "Loader", "Workers"]));
  for (const link of await links.all()) {
    const box = await link.boundingBox();
    expect(box, (await link.textContent()) ?? "").not.toBeNull();
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(WIDTH);
  }
  await expectWithinWidth(page);
});

test("a skill page does not scroll sideways and its Run button is on screen", async ({ page }) => {
  for (const skill of ["disk_usage", "kill_process"]) {
    await page.goto(`/skills/${skill}`);
    const run = page.getByRole("button", { name: "Run", exact: true });
    await expect(run).toBeVisible();
    await run.scrollIntoViewIfNeeded();
    const box = await run.boundingBox();
    expect(box!.x + box!.width, skill).toBeLessThanOrEqual(WIDTH);
    await expectWithinWidth(page);
  }
});

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

test("a call's stderr gives its line the clock column's width, and says how to read a long line whole", async ({ page, request }) => {
  const started = await request.post("/api/v1/skills/fail_loudly/calls", { data: { args: {}, wait: true } });
  expect(started.status()).toBe(200);
  const { call } = (await started.json()) as { call: { id: string; status: string } };
  expect(call.status).toBe("failed");
  await page.goto(`/calls/${call.id}`);
  const timeline = page.getByRole("log", { name: "stderr timeline" });
  const line = timeline.getByTestId("timeline-row").filter({ hasText: "line 5 of 5" });
  await expect(line).toBeVisible();
  // The time is left to the line read whole: the text starts right after the line number.
  await expect(line.locator("time")).toBeHidden();
  await expect(page.getByTestId("timeline-hint")).toHaveText("Lines longer than the box end in “…”: click or tap a line to read it whole.");
  await line.click();
  const whole = page.getByTestId("timeline-expanded");
  await expect(whole).toContainText("fail_loudly: line 5 of 5 (giving up: cannot build the report)");
  await expect(whole.locator("time")).toHaveText(/^\d\d:\d\d:\d\d\.\d{3}$/);
  await expect(page.getByTestId("timeline-hint")).toHaveCount(0);
  await expectWithinWidth(page);
});

import path from "node:path";
import { expect, test } from "@playwright/test";

/**
 * The main job of the console, end to end: find a skill in the list, fill its generated form, run it,
 * watch its stderr arrive live before the result, then read the result, exit code and duration.
 * Leaves a full-page screenshot of the finished call page in the run's artifacts, or, with
 * E2E_UPDATE_SCREENSHOT=1, in docs/screenshot.png (the README's): a test run never changes tracked files.
 */
test("run a skill from its form and follow the call live", async ({ page }, testInfo) => {
  await page.goto("/");

  await expect(page).toHaveURL(/\/skills$/);
  await expect(page.getByRole("heading", { level: 1, name: "Skills" })).toBeVisible();
  for (const category of ["e2e", "logs", "ops", "system"]) {
    await expect(page.getByRole("heading", { level: 2, name: category, exact: true })).toBeVisible();
  }

  await page.getByRole("link", { name: "slow_echo", exact: true }).click();
  await expect(page).toHaveURL(/\/skills\/slow_echo$/);
  await expect(page.getByRole("heading", { level: 1, name: "slow_echo" })).toBeVisible();

  // The form comes from the skill's JSON Schema, defaults included.
  const lines = page.getByLabel("Progress lines", { exact: true });
  await expect(lines).toHaveValue("3");
  const shout = page.getByLabel("Shout", { exact: true });
  await expect(shout).not.toBeChecked();

  await page.getByRole("textbox", { name: "Message (required)" }).fill("hello from e2e");
  await lines.fill("15");
  await shout.check();
  await page.getByRole("button", { name: "Run", exact: true }).click();

  await expect(page).toHaveURL(/\/calls\/[^/]+$/);
  await expect(page.getByRole("link", { name: "slow_echo" }).first()).toBeVisible();

  // Live: the first stderr line is on screen while the call has no result yet (15 lines 0.4 s apart
  // leave six seconds for that, even on a loaded machine).
  const timeline = page.getByRole("log", { name: "stderr timeline" });
  const result = page.getByTestId("call-result");
  await expect(timeline.getByText("step 1/15", { exact: true })).toBeVisible();
  await expect(result).toBeHidden();

  // Then the end: every line, the result JSON, exit code 0 and a duration.
  await expect(timeline.getByText("step 15/15", { exact: true })).toBeVisible();
  await expect(result).toBeVisible();
  await expect(page.getByTestId("result-json")).toContainText('"echo": "HELLO FROM E2E"');
  await expect(page.getByTestId("result-json")).toContainText('"lines": 15');
  await expect(page.getByTestId("result-exit-code")).toHaveText("0");
  await expect(page.getByTestId("result-duration")).toHaveText(/^\d+(\.\d+)? (ms|s)$/);
  await expect(page.getByTestId("call-exit-code")).toHaveText("0");
  await expect(page.locator("[data-status]").first()).toHaveAttribute("data-status", "succeeded");
  await expect(page.getByText("complete", { exact: true })).toBeVisible();

  // Timestamps are HH:MM:SS.mmm next to each seq.
  await expect(timeline.locator("time").first()).toHaveText(/^\d{2}:\d{2}:\d{2}\.\d{3}$/);

  await page.mouse.move(0, 0);
  await page.setViewportSize({ width: 1360, height: 640 });
  const screenshot = process.env.E2E_UPDATE_SCREENSHOT === "1" ? path.join(__dirname, "..", "docs", "screenshot.png") : testInfo.outputPath("screenshot.png");
  await page.screenshot({ path: screenshot, fullPage: true });
});

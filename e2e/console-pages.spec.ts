import { expect, test } from "@playwright/test";

/** The supporting pages: the args editor's Raw JSON mode and validation, approval notices, calls filters, loader report. */

test("the args form and its Raw JSON view stay in sync and report errors", async ({ page }) => {
  await page.goto("/skills/slow_echo");
  const message = page.getByLabel("Message");
  await message.fill("abc");

  await page.getByRole("button", { name: "Raw JSON" }).click();
  const raw = page.getByLabel("Args (JSON object)");
  await expect(raw).toHaveValue(/"message": "abc"/);
  await expect(raw).toHaveValue(/"lines": 3/);

  // Invalid JSON is reported with its position and never silently dropped.
  await raw.fill('{"message": "xyz",, "lines": 2}');
  await expect(page.getByText(/Invalid JSON at line 1, column \d+/)).toBeVisible();
  await page.getByRole("button", { name: "Form", exact: true }).click();
  await expect(page.getByText(/Fix the JSON before going back to the form/)).toBeVisible();
  await expect(raw).toHaveValue('{"message": "xyz",, "lines": 2}');

  await raw.fill('{"message": "xyz", "lines": 2}');
  await page.getByRole("button", { name: "Form", exact: true }).click();
  await expect(page.getByLabel("Message")).toHaveValue("xyz");
  await expect(page.getByLabel("Progress lines")).toHaveValue("2");

  // A missing required field is shown on the field; nothing is started.
  await page.getByLabel("Message").fill("");
  await page.getByRole("button", { name: "Run", exact: true }).click();
  await expect(page.getByText(/must have required property/)).toBeVisible();
  await expect(page).toHaveURL(/\/skills\/slow_echo$/);
});

test("a dangerous skill explains that it needs approval and cannot run", async ({ page }) => {
  await page.goto("/skills/kill_process");
  await expect(page.getByTestId("approval-notice")).toContainText("Approval required");
  await expect(page.getByRole("button", { name: "Run", exact: true })).toBeDisabled();
});

test("the calls history filters by skill and status", async ({ page, request }) => {
  const seeded = await request.post("/api/v1/skills/slow_echo/calls", { data: { args: { message: "seed", lines: 1 }, wait: true } });
  expect(seeded.status()).toBe(200);

  await page.goto("/calls");
  await expect(page.getByRole("heading", { level: 1, name: "Calls" })).toBeVisible();
  await page.getByLabel("Skill").selectOption("slow_echo");
  await expect(page).toHaveURL(/skill=slow_echo/);
  const rows = page.locator("tbody tr");
  await expect(rows.first()).toBeVisible();
  for (const cell of await page.locator("tbody tr td:nth-child(2)").allTextContents()) expect(cell).toBe("slow_echo");

  await page.getByLabel("Status").selectOption("timed_out");
  await expect(page.getByText("No call matches these filters")).toBeVisible();
  await page.getByRole("button", { name: "Clear filters" }).first().click();
  await expect(rows.first()).toBeVisible();
});

test("the loader report lists the registered skills and rescans", async ({ page }) => {
  await page.goto("/loader");
  const registered = page.getByRole("region", { name: /Registered/ });
  await expect(registered.getByRole("link", { name: "slow_echo" })).toBeVisible();
  await expect(registered.getByRole("link", { name: "log_scan" })).toBeVisible();

  await page.getByRole("button", { name: "Rescan" }).click();
  await expect(page.getByText(/Rescanned: \d+ skills? registered/)).toBeVisible();
});

test("a running call can be cancelled after a confirmation", async ({ page, request }) => {
  const started = await request.post("/api/v1/skills/slow_echo/calls", { data: { args: { message: "long", lines: 50 }, wait: false } });
  expect(started.status()).toBe(202);
  const { call } = (await started.json()) as { call: { id: string } };

  await page.goto(`/calls/${call.id}`);
  const timeline = page.getByRole("log", { name: "stderr timeline" });
  await expect(timeline.getByText("step 1/50", { exact: true })).toBeVisible();

  await page.getByRole("button", { name: "Cancel call" }).click();
  const dialog = page.getByRole("dialog", { name: "Cancel this call?" });
  await expect(dialog).toBeVisible();
  await dialog.getByRole("button", { name: "Keep running" }).click();
  await expect(dialog).toBeHidden();

  await page.getByRole("button", { name: "Cancel call" }).click();
  await dialog.getByRole("button", { name: "Kill process group" }).click();
  await expect(page.locator("[data-status]").first()).toHaveAttribute("data-status", "cancelled");
  await expect(page.getByTestId("call-result")).toContainText("The call was cancelled");
  await expect(page.getByRole("button", { name: "Cancel call" })).toBeHidden();
});

import { expect, test } from "@playwright/test";

/**
 * The supporting pages: the args editor's Raw JSON mode and validation messages, approval notices and
 * copying args, the skills category filter, calls filters, loader report, favicon.
 */

test("the args form and its Raw JSON view stay in sync and report errors", async ({ page }) => {
  await page.goto("/skills/slow_echo");
  const message = page.getByRole("textbox", { name: "Message (required)" });
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
  await expect(page.getByRole("textbox", { name: "Message (required)" })).toHaveValue("xyz");
  await expect(page.getByLabel("Progress lines", { exact: true })).toHaveValue("2");

  // A missing required field is shown on the field; nothing is started. (An emptied text field sends
  // "", which is a value: the field is left out through the raw editor instead.)
  await page.getByRole("button", { name: "Raw JSON" }).click();
  await raw.fill('{"lines": 2}');
  await page.getByRole("button", { name: "Form", exact: true }).click();
  await page.getByRole("button", { name: "Run", exact: true }).click();
  await expect(page.getByText("“message” is required")).toBeVisible();
  await expect(page).toHaveURL(/\/skills\/slow_echo$/);
});

test("validation messages name the field and the rule in plain words", async ({ page }) => {
  await page.goto("/skills/log_scan");
  await page.getByLabel("Log file", { exact: true }).fill("var/log/dpkg.log");
  await page.getByRole("button", { name: "Run", exact: true }).click();
  await expect(page.getByText("must match the pattern ^/")).toBeVisible();

  // An extra property typed in Raw JSON is named; nothing is started.
  await page.getByRole("button", { name: "Raw JSON" }).click();
  await page.getByLabel("Args (JSON object)").fill('{"path": "/var/log/dpkg.log", "patterns": ["install"], "bogus": 1}');
  await page.getByRole("button", { name: "Run", exact: true }).click();
  await expect(page.getByTestId("args-errors")).toHaveText("unknown field “bogus”");
  await expect(page).toHaveURL(/\/skills\/log_scan$/);
});

test("a dangerous skill explains that it needs approval and cannot run, but its args can be copied", async ({ page, context }) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await page.goto("/skills/kill_process");
  const notice = page.getByTestId("approval-notice");
  // The default persona is read-only: the policy refuses it, and the heading says so.
  await expect(notice).toContainText("Refused under this persona — this skill is dangerous");
  await expect(notice).toHaveAttribute("data-class", "dangerous");
  await expect(page.getByRole("button", { name: "Run", exact: true })).toBeDisabled();
  await expect(page.getByRole("region", { name: "Recent calls" })).toContainText(/^Recent calls\s*View all\s*No calls yet\.$/);

  await page.getByRole("textbox", { name: "Process id (required)" }).fill("4242");
  await page.getByRole("button", { name: "Copy args as JSON" }).click();
  await expect(page.getByRole("button", { name: "Copied" })).toBeVisible();
  const copied = JSON.parse(await page.evaluate(() => navigator.clipboard.readText())) as Record<string, unknown>;
  expect(copied.pid).toBe(4242);
});

test("a skill's notice is red where Run will be refused, amber where it needs people first", async ({ page, request }) => {
  const persona = `signing-${Date.now().toString(36)}`;
  expect((await request.post("/api/v1/personas", { data: { name: persona, permission_mode: "dual-sign-required", skills: { allow: ["*"], deny: [] } } })).status()).toBe(201);
  const notice = page.getByTestId("approval-notice");
  await page.goto("/skills/disk_cleaner");
  await expect(notice).toHaveAttribute("data-class", "mutating");
  // Under the read-only default: refused.
  await expect(notice).toHaveAttribute("data-outcome", "deny");
  await expect(notice).toHaveClass(/red/);
  await page.goto("/skills/kill_process");
  await expect(notice).toHaveAttribute("data-outcome", "deny");
  await expect(notice).toHaveClass(/red/);
  // Allowed after two signatures: amber, even for a dangerous skill.
  await page.getByLabel("Run as persona").selectOption(persona);
  await expect(notice).toHaveAttribute("data-outcome", "dual_sign");
  await expect(notice).toContainText("Approval required — this skill is dangerous");
  await expect(notice).toHaveClass(/amber/);
});

test("a skill's category link filters the skills list by that category", async ({ page }) => {
  await page.goto("/skills/disk_usage");
  await page.getByRole("region", { name: "Details" }).getByRole("link", { name: "system", exact: true }).click();
  await expect(page).toHaveURL(/\/skills\?category=system$/);
  await expect(page.getByTestId("category-chip")).toContainText("category: system");
  await expect(page.getByRole("heading", { level: 2, name: "system", exact: true })).toBeVisible();
  await expect(page.getByRole("heading", { level: 2, name: "ops", exact: true })).toBeHidden();
  await expect(page.getByRole("link", { name: "process_list", exact: true })).toBeVisible();

  await page.getByRole("button", { name: "Remove the category filter system" }).click();
  await expect(page.getByTestId("category-chip")).toBeHidden();
  await expect(page.getByRole("heading", { level: 2, name: "ops", exact: true })).toBeVisible();
  await expect(page).toHaveURL(/\/skills$/);
});

test("the calls history filters by skill and status", async ({ page, request }) => {
  const seeded = await request.post("/api/v1/skills/slow_echo/calls", { data: { args: { message: "seed", lines: 1 }, wait: true } });
  expect(seeded.status()).toBe(200);

  await page.goto("/calls");
  await expect(page.getByRole("heading", { level: 1, name: "Calls" })).toBeVisible();
  // The Skill box suggests registered skills (and those of past calls); typing applies once it rests.
  await expect(page.locator('#calls-filter-skill-options option[value="slow_echo"]')).toHaveCount(1);
  await page.getByLabel("Skill").fill("slow_echo");
  await expect(page).toHaveURL(/skill=slow_echo/);
  const rows = page.locator("tbody tr");
  await expect(rows.first()).toBeVisible();
  for (const cell of await page.locator("tbody tr td:nth-child(2)").allTextContents()) expect(cell).toBe("slow_echo");

  await page.getByLabel("Status").selectOption("timed_out");
  await expect(page.getByText("No call matches these filters")).toBeVisible();
  await page.getByRole("button", { name: "Clear filters" }).first().click();
  await expect(rows.first()).toBeVisible();
  await expect(page.getByLabel("Skill")).toHaveValue("");

  // A skill typed by hand (as for calls of a skill no longer registered) is kept in the URL too.
  await page.goto("/calls?skill=gone_skill");
  await expect(page.getByLabel("Skill")).toHaveValue("gone_skill");
  await expect(page.getByText("No call matches these filters")).toBeVisible();
});

test("the loader report lists the registered skills and rescans", async ({ page }) => {
  await page.goto("/loader");
  const registered = page.getByRole("region", { name: /Registered/ });
  await expect(registered.getByRole("link", { name: "slow_echo" })).toBeVisible();
  await expect(registered.getByRole("link", { name: "log_scan" })).toBeVisible();

  // The roots are watched, and the scan history shows the start-up scan, then this Rescan on top.
  await expect(page.getByText(/Watching \d+ folders?: a skill changed on disk is picked up within 2 s\./)).toBeVisible();
  const history = page.getByRole("table", { name: "Scan history" });
  await expect(history.getByRole("row").nth(1)).toBeVisible();
  await page.getByRole("button", { name: "Rescan" }).click();
  await expect(page.getByText(/Rescanned: \d+ skills? registered/)).toBeVisible();
  await expect(history.getByRole("row").nth(1).getByRole("cell").nth(1)).toHaveText("Rescan");
  await expect(history.getByRole("row").nth(1).getByRole("cell").nth(4)).toHaveText("no skill changed");
  await registered.getByRole("link", { name: "log_scan" }).click();
  await expect(page).toHaveURL(/\/skills\/log_scan$/);
});

test("the console has a favicon", async ({ page, request }) => {
  await page.goto("/skills");
  const href = await page.locator('link[rel="icon"]').first().getAttribute("href");
  expect(href).toBeTruthy();
  const icon = await request.get(href ?? "");
  expect(icon.status()).toBe(200);
  expect(icon.headers()["content-type"]).toContain("image/svg+xml");
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
  // The failure box says what stopped it: the closing system line, after the last stderr lines.
  const excerpt = page.getByTestId("failure-excerpt");
  await expect(excerpt.locator('li[data-stream="system"]')).toContainText("cancelled");
  await expect(excerpt.locator('li[data-stream="stderr"]').last()).toContainText(/step \d+\/50/);
});

test("a call waiting for its confirmation can be declined from its own page", async ({ page, request }) => {
  const persona = `decline-${Date.now().toString(36)}`;
  expect((await request.post("/api/v1/personas", { data: { name: persona, permission_mode: "mutating-with-confirm", skills: { allow: ["*"], deny: [] } } })).status()).toBe(201);
  const requested = await request.post("/api/v1/skills/disk_cleaner/calls", { data: { args: { path: "/tmp" }, persona, wait: false } });
  const { call } = (await requested.json()) as { call: { id: string; status: string } };
  expect(call.status).toBe("awaiting_confirmation");

  await page.goto(`/calls/${call.id}`);
  await expect(page.getByTestId("call-waiting")).toBeVisible();
  await page.getByRole("button", { name: "Don't run" }).click();
  const dialog = page.getByRole("dialog", { name: "Don't run this call?" });
  await dialog.getByRole("button", { name: "Keep it waiting" }).click();
  await expect(dialog).toBeHidden();
  await expect(page.locator("[data-status]").first()).toHaveAttribute("data-status", "awaiting_confirmation");

  await page.getByRole("button", { name: "Don't run" }).click();
  await dialog.getByRole("button", { name: "Don't run it" }).click();
  await expect(page.locator("[data-status]").first()).toHaveAttribute("data-status", "cancelled");
  await expect(page.getByRole("button", { name: "Don't run" })).toBeHidden();
  await expect(page.getByTestId("call-waiting")).toBeHidden();
});

test("a list that fails to load says why, and Retry loads it: a page's list and a skill's recent calls", async ({ page }) => {
  const places = [
    { url: "/webhooks", api: "**/api/v1/webhooks", title: "Could not load the webhooks", message: "the console is restoring its database" },
    // This one had no Retry before LoadFailed.
    { url: "/skills/slow_echo", api: "**/api/v1/calls?*", title: "Could not load the calls", message: "the calls cannot be read now" },
  ];
  for (const place of places) {
    let refusing = true;
    await page.route(place.api, (route) =>
      refusing && route.request().method() === "GET"
        ? route.fulfill({ status: 409, contentType: "application/json", body: JSON.stringify({ error: { code: "conflict", message: place.message } }) })
        : route.continue(),
    );
    await page.goto(place.url);
    const failure = page.getByRole("alert").filter({ hasText: place.title });
    await expect(failure).toContainText(place.message);
    refusing = false;
    await failure.getByRole("button", { name: "Retry" }).click();
    await expect(failure).toHaveCount(0);
  }
});

import { randomBytes } from "node:crypto";
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { createPerson, signInPage } from "./support/people";

/**
 * The Secrets page (DESIGN.md "Skill secrets"; admins only) and the skill page's Secrets row, with the
 * fixture e2e/fixtures/native/e2e/needs-secret: a native skill whose `requires.env` names E2E_TOKEN, so
 * it is unavailable until a secret of that name is given to it; its script prints the value, which the
 * call page shows masked. The value typed is never served again nor kept by the page: not in its HTML,
 * its URL, its storage, nor any JSON the console answers after the save.
 */

const SECRET = "E2E_TOKEN";
const SKILL = "needs-secret";
const MASK = "•••";

/** A value of this run: long enough to be unmistakable wherever it would leak. */
function freshValue(): string {
  return `e2e-value-${randomBytes(12).toString("hex")}`;
}

/** Removes the fixture's secret left by an earlier run or test (404 when there is none). */
async function deleteSecret(request: APIRequestContext): Promise<void> {
  const response = await request.delete(`/api/v1/secrets/${SECRET}`);
  expect([200, 404]).toContain(response.status());
}

/** Every JSON body the console answers to `page` from now on (event streams are left out: they never end). */
function recordJsonAnswers(page: Page): string[] {
  const bodies: string[] = [];
  page.on("response", async (response) => {
    if (!(response.headers()["content-type"] ?? "").includes("application/json")) return;
    try {
      bodies.push(await response.text());
    } catch {
      // The page navigated away before the body was read.
    }
  });
  return bodies;
}

/** Asserts that `value` is nowhere the page keeps things: its HTML, URL, local and session storage. */
async function expectValueNowhere(page: Page, value: string): Promise<void> {
  expect(await page.content()).not.toContain(value);
  expect(page.url()).not.toContain(value);
  const stored = await page.evaluate(() => JSON.stringify([Object.entries(localStorage), Object.entries(sessionStorage)]));
  expect(stored).not.toContain(value);
}

test("an admin gives a skill the secret it needs: it becomes available, runs with the value masked, and the value never comes back", async ({ page, request }) => {
  await deleteSecret(request);
  const value = freshValue();

  // Unavailable, and its page says which secret is missing.
  await page.goto(`/skills/${SKILL}`);
  await expect(page.getByTestId("unavailable-reason")).toContainText(`needs secret ${SECRET}`);
  const row = page.getByTestId("skill-secrets").locator(`[data-secret="${SECRET}"]`);
  await expect(row).toHaveAttribute("data-state", "missing");
  await page.getByTestId("skill-secrets").getByRole("link", { name: "Set it on the Secrets page" }).click();
  await expect(page).toHaveURL(/\/secrets$/);
  await expect(page.getByRole("heading", { level: 1, name: "Secrets" })).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Secrets" })).toHaveAttribute("aria-current", "page");
  await expect(page.getByTestId("missing-secret").filter({ hasText: SECRET })).toContainText(SKILL);

  // By keyboard: the name, the skill found in the picker with Enter, the value.
  const answers = recordJsonAnswers(page);
  const form = page.getByRole("region", { name: "New secret" });
  await form.getByLabel("Name", { exact: true }).fill(SECRET);
  await form.getByLabel("Find a skill").fill(SKILL);
  await expect(form.getByTestId("skill-choice").first()).toHaveAttribute("data-skill", SKILL);
  await expect(form.getByTestId("skill-choice").first()).toContainText(`needs ${SECRET}`);
  await form.getByLabel("Find a skill").press("Enter");
  await expect(form.getByRole("list", { name: "Chosen skills" })).toContainText(SKILL);
  await expect(form.getByLabel("Find a skill")).toHaveValue("");
  await expect(form.getByTestId("secret-impact")).toContainText(`Any pending approvals of ${SKILL} are voided`);

  // The server's refusal is shown as it says it, without the value, and the value is cleared.
  const valueField = form.getByLabel("Value", { exact: true });
  await expect(valueField).toHaveAttribute("type", "password");
  await valueField.fill(`${value} `);
  await form.getByRole("button", { name: "Save secret" }).click();
  const refusal = form.getByRole("alert");
  await expect(refusal).toContainText("The secret was not saved");
  await expect(refusal).toContainText(`the value of ${SECRET} begins or ends with whitespace`);
  await expect(refusal).not.toContainText(value);
  await expect(valueField).toHaveValue("");

  const sent = page.waitForRequest((candidate) => candidate.method() === "POST" && new URL(candidate.url()).pathname === "/api/v1/secrets");
  await valueField.fill(value);
  await valueField.press("Enter");
  expect((await sent).postDataJSON()).toEqual({ name: SECRET, value, skills: [SKILL] });
  await expect(form.getByTestId("secret-saved")).toContainText(`Secret ${SECRET} saved.`);
  await expect(valueField).toHaveValue("");
  const secretRow = page.locator(`[data-testid="secret-row"][data-secret="${SECRET}"]`);
  await expect(secretRow.getByRole("link", { name: SKILL })).toHaveAttribute("href", `/skills/${SKILL}`);
  await expect(secretRow).toContainText(/hmac-sha256:[0-9a-f]{16}/);
  await expect(secretRow).toContainText("readable");
  await expect(page.getByTestId("missing-secret").filter({ hasText: SECRET })).toHaveCount(0);
  await expectValueNowhere(page, value);
  await page.reload();
  await expect(secretRow).toBeVisible();
  await expectValueNowhere(page, value);

  // Available now, and its run masks the value in the result and the timeline.
  await secretRow.getByRole("link", { name: SKILL }).click();
  await expect(page).toHaveURL(new RegExp(`/skills/${SKILL}$`));
  await expect(row).toHaveAttribute("data-state", "given");
  await expect(page.getByTestId("unavailable-reason")).toHaveCount(0);
  await page.getByRole("button", { name: "Run show.sh" }).click();
  await page.getByRole("button", { name: "Run", exact: true }).click();
  await expect(page).toHaveURL(/\/calls\/[^/?]+$/);
  await expect(page.locator("[data-status]").first()).toHaveAttribute("data-status", "succeeded");
  await expect(page.getByTestId("result-stdout")).toHaveText(`token: ${MASK}`);
  await expect(page.getByRole("log", { name: "stderr timeline" })).toContainText(`using token ${MASK}`);
  await expectValueNowhere(page, value);
  expect(answers.length).toBeGreaterThan(0);
  for (const body of answers) expect(body).not.toContain(value);
});

test("an admin changes a secret's skills, then deletes it after a confirmation naming what it affects", async ({ page, request }) => {
  await deleteSecret(request);
  expect((await request.post("/api/v1/secrets", { data: { name: SECRET, value: freshValue(), skills: [SKILL] } })).status()).toBe(201);

  await page.goto("/secrets");
  const secretRow = page.locator(`[data-testid="secret-row"][data-secret="${SECRET}"]`);
  await secretRow.getByRole("button", { name: `Change secret ${SECRET}` }).click();
  const dialog = page.getByRole("dialog", { name: `Change secret ${SECRET}` });
  await expect(dialog.getByRole("list", { name: "Chosen skills" })).toContainText(SKILL);
  await expect(dialog.getByRole("button", { name: "Save changes" })).toBeDisabled();
  await dialog.getByLabel("Find a skill").fill("log-analyzer");
  await dialog.getByLabel("Find a skill").press("Enter");
  await expect(dialog.getByTestId("secret-impact").locator('[data-impact="gaining"]')).toContainText("log-analyzer");
  await expect(dialog.getByTestId("secret-impact").locator('[data-impact="voided"]')).toContainText("Any pending approvals of log-analyzer are voided");
  // A new value would void every skill's pending approvals.
  await dialog.getByLabel("New value (optional)").fill(freshValue());
  await expect(dialog.getByTestId("secret-impact").locator('[data-impact="voided"]')).toContainText(`Any pending approvals of ${SKILL} and log-analyzer are voided`);
  await dialog.getByLabel("New value (optional)").fill("");
  // Taking it from the skill that needs it says it becomes unavailable.
  await dialog.getByRole("button", { name: `Remove ${SKILL}` }).click();
  await expect(dialog.getByTestId("secret-impact").locator('[data-impact="disabled"]')).toContainText(SKILL);
  await dialog.getByLabel("Find a skill").fill(SKILL);
  await dialog.getByLabel("Find a skill").press("Enter");
  await expect(dialog.getByTestId("secret-impact").locator('[data-impact="disabled"]')).toHaveCount(0);

  const sent = page.waitForRequest((candidate) => candidate.method() === "PUT");
  await dialog.getByRole("button", { name: "Save changes" }).click();
  expect((await sent).postDataJSON()).toEqual({ skills: ["log-analyzer", SKILL] });
  await expect(dialog).toBeHidden();
  await expect(secretRow.getByRole("link", { name: "log-analyzer" })).toBeVisible();
  await expect(secretRow.getByRole("link", { name: SKILL })).toBeVisible();

  await secretRow.getByRole("button", { name: `Delete secret ${SECRET}` }).click();
  const confirm = page.getByRole("dialog", { name: `Delete secret ${SECRET}?` });
  await expect(confirm.locator('[data-impact="losing"]')).toContainText(`log-analyzer and ${SKILL}`);
  await expect(confirm.locator('[data-impact="disabled"]')).toContainText(`Become unavailable (they need ${SECRET}): ${SKILL}`);
  await expect(confirm.locator('[data-impact="voided"]')).toContainText(`Any pending approvals of log-analyzer and ${SKILL} are voided`);
  await confirm.getByRole("button", { name: "Delete secret" }).click();
  await expect(confirm).toBeHidden();
  await expect(secretRow).toHaveCount(0);
  await expect(page.getByTestId("missing-secret").filter({ hasText: SECRET })).toContainText(SKILL);

  await page.goto(`/skills/${SKILL}`);
  await expect(page.getByTestId("unavailable-reason")).toContainText(`needs secret ${SECRET}`);
  await expect(page.getByTestId("skill-secrets").locator(`[data-secret="${SECRET}"]`)).toHaveAttribute("data-state", "missing");
});

test("a person below admin sees no Secrets link, and the page and the API refuse them", async ({ browser, request, baseURL }) => {
  const approver = await createPerson(request, "approver");
  const context = await signInPage(browser, baseURL!, approver.email, approver.password);
  try {
    const page = await context.newPage();
    await page.goto("/skills");
    const nav = page.getByRole("navigation", { name: "Main" });
    await expect(nav.getByRole("link", { name: "Approvals" })).toBeVisible();
    await expect(nav.getByRole("link", { name: "Secrets" })).toHaveCount(0);
    await page.goto("/secrets");
    await expect(page.getByText("Admins only")).toBeVisible();
    await expect(page.getByRole("region", { name: "New secret" })).toHaveCount(0);
    expect((await context.request.get("/api/v1/secrets")).status()).toBe(403);
    expect((await context.request.post("/api/v1/secrets", { data: { name: "NOT_ALLOWED", value: freshValue(), skills: [] } })).status()).toBe(403);
    // The skill page shows what the skill needs, without the admins' link.
    await page.goto(`/skills/${SKILL}`);
    await expect(page.getByTestId("skill-secrets")).toContainText(SECRET);
    await expect(page.getByTestId("skill-secrets").getByRole("link")).toHaveCount(0);
  } finally {
    await context.close();
  }
});

test("at 390 px the picker finds one of a thousand skills, and a secret sealed with another key says to set it again", async ({ page }) => {
  const skills = Array.from({ length: 1000 }, (_, n) => ({
    name: `bulk_${String(n).padStart(4, "0")}`,
    kind: "subprocess",
    description: `generated skill ${n}`,
    category: `cat_${String(n % 20).padStart(2, "0")}`,
    class: "safe",
    schema: { type: "object" },
    timeoutSeconds: 30,
    envAllow: [],
    source: { root: "/e2e", path: `/e2e/bulk_${n}/skill.json` },
    available: true,
    unavailableReason: null,
    warnings: [],
    sandbox: { read: [], write: [], network: true, devices: [], hostPids: false },
    secretsNeeded: [],
    secretsGiven: [],
  }));
  const sealedElsewhere = {
    name: "OLD_KEY",
    readable: false,
    skills: ["bulk_0001"],
    fingerprint: "hmac-sha256:0123456789abcdef",
    createdBy: "admin@console.local",
    createdAt: "2026-01-02T03:04:05.000Z",
    updatedBy: "admin@console.local",
    updatedAt: "2026-01-02T03:04:05.000Z",
  };
  await page.route(/\/api\/v1\/skills$/, (route) => route.fulfill({ json: { skills } }));
  await page.route(/\/api\/v1\/secrets$/, (route) => (route.request().method() === "GET" ? route.fulfill({ json: { secrets: [sealedElsewhere] } }) : route.continue()));
  await page.setViewportSize({ width: 390, height: 844 });

  await page.goto("/secrets");
  const row = page.locator('[data-testid="secret-row"][data-secret="OLD_KEY"]');
  await expect(row.getByTestId("secret-unreadable")).toHaveText("sealed with another key: set it again");
  const form = page.getByRole("region", { name: "New secret" });
  await expect(form.getByText("100 of 1,000 matching skills shown")).toBeVisible();
  await expect(form.getByTestId("skill-choice")).toHaveCount(100);
  await form.getByLabel("Find a skill").fill("bulk_0777");
  await expect(form.getByTestId("skill-choice")).toHaveCount(1);
  await form.getByLabel("Find a skill").press("Enter");
  await expect(form.getByRole("list", { name: "Chosen skills" })).toContainText("bulk_0777");
  // A name no skill has can be given too (a skill installed later), after saying so.
  await form.getByLabel("Find a skill").fill("not_installed_yet");
  await expect(form.getByTestId("unregistered-skill")).toContainText("No skill named not_installed_yet is registered now.");
  await form.getByRole("button", { name: "Add not_installed_yet anyway" }).click();
  await expect(form.getByRole("list", { name: "Chosen skills" })).toContainText("not registered");

  await row.getByRole("button", { name: "Change secret OLD_KEY" }).click();
  const dialog = page.getByRole("dialog", { name: "Change secret OLD_KEY" });
  await expect(dialog).toContainText("Sealed with another key: set it again");
  const box = await dialog.boundingBox();
  expect(box!.x).toBeGreaterThanOrEqual(0);
  expect(box!.x + box!.width).toBeLessThanOrEqual(390);
  await dialog.getByRole("button", { name: "Cancel" }).click();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
});

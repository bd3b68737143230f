import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test, type APIRequestContext, type Locator, type Page } from "@playwright/test";
import { E2E_ADMIN } from "./support/e2e-admin";

/**
 * Issue 14 point 5: every page at a phone's width (390 px) and a laptop's (1280 px). On each: the page
 * never scrolls sideways (document.scrollingElement), no table scrolls sideways inside its frame at
 * 390 px (its rows stack), the page's key control is on screen without sideways scroll, and the
 * navigation is the Menu button at 390 px and the link bar with the signed-in person at 1280 px. The
 * data is seeded through the API first, with long names and long args, so every table has rows.
 * A separate test drives the phone menu with the keyboard.
 */

const WIDTHS = [390, 1280] as const;
/** Below this width the navigation folds into the Menu button (Tailwind's lg). */
const MENU_BELOW = 1024;

/** A subprocess fixture skill with a 64-character name (the manifest's longest) and a free-text arg. */
const LONG_SKILL = "compress_and_rotate_application_log_files_beyond_their_retention";
const NONCE = randomBytes(4).toString("hex");
/** An arg with no space to break at: its display has to wrap it. */
const LONG_ARG = `/var/log/application/${"nested_folder_".repeat(12)}archive-${NONCE}.tar.gz`;

/** What the seeding made, for the page list and the clean-up. */
interface Seeded {
  callId: string;
  approvalCallId: string;
  confirmationCallId: string;
  packId: string;
  packName: string;
  packFolder: string;
  persona: string;
  webhookId: string;
  webhookUrl: string;
}

/** One page of the console: where it is, its key control, and a seeded value that must fit the screen. */
interface PageCheck {
  name: string;
  path: (seeded: Seeded) => string;
  key: (page: Page, seeded: Seeded) => Locator;
  /** Seeded content that must show within the screen's width (long names wrap instead of widening the page). */
  fits?: (page: Page, seeded: Seeded) => Locator;
  /** The login page is seen signed out, without the console's navigation. */
  signedOut?: boolean;
}

/** Every page of the console; a new page is one entry here. */
const PAGES: PageCheck[] = [
  { name: "skills list", path: () => "/skills", key: (page) => page.getByRole("searchbox", { name: "Search skills by relevance" }), fits: (page) => page.getByRole("link", { name: LONG_SKILL, exact: true }) },
  { name: "skill detail (subprocess)", path: () => `/skills/${LONG_SKILL}`, key: (page) => page.getByRole("button", { name: "Run", exact: true }), fits: (page) => page.getByRole("heading", { level: 1, name: LONG_SKILL }) },
  { name: "skill detail (native)", path: () => "/skills/log-analyzer", key: (page) => page.getByRole("button", { name: "Run", exact: true }) },
  { name: "call detail", path: (seeded) => `/calls/${seeded.callId}`, key: (page) => page.getByRole("link", { name: "Run again with these args" }), fits: (page) => page.getByText(LONG_ARG).first() },
  { name: "calls", path: () => "/calls", key: (page, seeded) => page.getByRole("link", { name: `Call ${seeded.callId} of ${LONG_SKILL}` }), fits: (page) => page.getByRole("link", { name: LONG_SKILL, exact: true }).first() },
  { name: "loader", path: () => "/loader", key: (page) => page.getByRole("button", { name: "Rescan" }), fits: (page) => page.getByRole("link", { name: LONG_SKILL, exact: true }) },
  { name: "approvals", path: () => "/approvals", key: (page, seeded) => page.locator(`[data-testid="approval-card"][data-call-id="${seeded.approvalCallId}"]`).getByRole("button", { name: "Deny" }) },
  { name: "personas", path: () => "/personas", key: (page) => page.getByRole("button", { name: "New persona" }), fits: (page, seeded) => page.getByTestId(`persona-row-${seeded.persona}`) },
  { name: "workers", path: () => "/workers", key: (page) => page.getByRole("button", { name: "Create worker token" }), fits: (page) => page.locator(`[data-testid="worker-token-row"][data-token-name="build-host-in-the-far-away-datacenter-${NONCE}"]`) },
  { name: "secrets", path: () => "/secrets", key: (page) => page.getByRole("button", { name: "Save secret" }), fits: (page) => page.locator(`[data-testid="secret-row"][data-secret="ARCHIVE_STORAGE_ACCESS_KEY_OF_THE_RETENTION_JOB_${NONCE.toUpperCase()}"]`) },
  { name: "users", path: () => "/users", key: (page) => page.getByRole("button", { name: "Create person" }), fits: (page) => page.getByRole("cell", { name: `on-call-operator-with-a-long-address-${NONCE}@operations.console.local`, exact: true }) },
  { name: "packs", path: () => "/packs", key: (page) => page.getByRole("button", { name: "Stage and review" }), fits: (page, seeded) => page.getByRole("button", { name: `Discard ${seeded.packName} 1.0.0` }) },
  { name: "pack review", path: (seeded) => `/packs/${seeded.packId}`, key: (page, seeded) => page.getByRole("button", { name: `Enable ${seeded.packName} 1.0.0` }), fits: (page) => page.getByTestId("pack-skill").first() },
  { name: "tokens", path: () => "/tokens", key: (page) => page.getByRole("button", { name: "Create token" }), fits: (page) => page.getByRole("button", { name: `Revoke token nightly-report-agent-of-the-operations-team-${NONCE}` }) },
  { name: "audit", path: () => "/audit", key: (page) => page.getByRole("heading", { level: 1, name: "Audit" }) },
  { name: "webhooks", path: () => "/webhooks", key: (page) => page.getByRole("button", { name: "Add webhook" }), fits: (page, seeded) => page.getByTestId("webhook-card").filter({ hasText: seeded.webhookUrl }).getByRole("button", { name: "Delete" }) },
  { name: "API reference", path: () => "/api-reference", key: (page) => page.getByRole("heading", { level: 1, name: "API reference" }) },
  { name: "not found", path: () => `/no-such-page-${NONCE}`, key: (page) => page.getByRole("link", { name: "Go to the skills list" }) },
  { name: "login", path: () => "/login", key: (page) => page.getByRole("button", { name: "Sign in" }), signedOut: true },
];

/** Throws with the answer unless `response` has `status`; returns its JSON body. */
async function expectStatus<T>(response: Awaited<ReturnType<APIRequestContext["get"]>>, status: number): Promise<T> {
  expect(response.status(), await response.text()).toBe(status);
  return (await response.json()) as T;
}

/** Writes a pack with one long-named safe skill into a new folder under the host's temp folder. */
function writePack(name: string): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "skill-console-e2e-narrow-pack-"));
  fs.writeFileSync(path.join(folder, "pack.json"), JSON.stringify({ name, version: "1.0.0", description: "e2e: a pack whose names are long, for the narrow-screen checks" }));
  const dir = path.join(folder, "archive-reader");
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, "skill.json"), JSON.stringify({ name: `narrow_${NONCE}_archive_reader_for_the_retention_job`, description: "e2e narrow-screen pack skill", class: "safe", entry: "run.sh" }));
  fs.writeFileSync(path.join(dir, "run.sh"), `#!/bin/sh\ncat > /dev/null\necho '{"ok": true}'\n`, { mode: 0o755 });
  fs.chmodSync(folder, 0o755);
  return folder;
}

/**
 * Seeds, as the suite's admin: a finished call of LONG_SKILL with LONG_ARG, a dual-sign persona with a
 * long name and a pending approval under it, a call awaiting confirmation, an API token, a worker
 * token, a secret, a person and a staged pack, all with long names.
 */
async function seed(request: APIRequestContext): Promise<Seeded> {
  const { call } = await expectStatus<{ call: { id: string } }>(await request.post(`/api/v1/skills/${LONG_SKILL}/calls`, { data: { args: { archive_path: LONG_ARG }, wait: true } }), 200);
  const persona = `narrow-${NONCE}-on-call-persona-with-a-long-name`;
  await expectStatus(
    await request.post("/api/v1/personas", {
      data: { name: persona, description: "e2e: a persona whose description runs on so that the personas table has a long value to wrap.", permission_mode: "dual-sign-required", skills: { allow: ["*", LONG_SKILL], deny: ["kill_process"] } },
    }),
    201,
  );
  const approval = await expectStatus<{ call: { id: string; status: string } }>(await request.post("/api/v1/skills/wipe_cache/calls", { data: { args: { nonce: `narrow-${NONCE}` }, persona, wait: true } }), 202);
  expect(approval.call.status).toBe("awaiting_approval");
  const confirming = `narrow-${NONCE}-confirm`;
  await expectStatus(await request.post("/api/v1/personas", { data: { name: confirming, permission_mode: "mutating-with-confirm", skills: { allow: ["*"], deny: [] } } }), 201);
  const confirmation = await expectStatus<{ call: { id: string; status: string } }>(await request.post("/api/v1/skills/disk_cleaner/calls", { data: { args: { path: `/var/tmp/skill-console-e2e-narrow-${NONCE}`, dry_run: true }, persona: confirming, wait: true } }), 202);
  expect(confirmation.call.status).toBe("awaiting_confirmation");
  await expectStatus(await request.post("/api/v1/tokens", { data: { name: `nightly-report-agent-of-the-operations-team-${NONCE}`, persona } }), 201);
  await expectStatus(await request.post("/api/v1/worker-tokens", { data: { name: `build-host-in-the-far-away-datacenter-${NONCE}`, labels: ["gpu", "eu-west-with-a-long-label"] } }), 201);
  await expectStatus(await request.post("/api/v1/secrets", { data: { name: `ARCHIVE_STORAGE_ACCESS_KEY_OF_THE_RETENTION_JOB_${NONCE.toUpperCase()}`, value: `secret-value-${NONCE}`, skills: [LONG_SKILL] } }), 201);
  await expectStatus(await request.post("/api/v1/users", { data: { email: `on-call-operator-with-a-long-address-${NONCE}@operations.console.local`, password: `e2e-password-${NONCE}-0123456789`, role: "operator" } }), 201);
  const packName = `narrow-${NONCE}-log-retention-toolkit`;
  const packFolder = writePack(packName);
  const { pack } = await expectStatus<{ pack: { id: string } }>(await request.post("/api/v1/packs", { data: { source: { type: "folder", path: packFolder } } }), 201);
  // An address with a long unbroken path: its card must wrap it.
  const webhookUrl = `http://127.0.0.1:9/hooks/services/T00000000/B00000000/${"x".repeat(48)}-${NONCE}`;
  const { webhook } = await expectStatus<{ webhook: { id: string } }>(await request.post("/api/v1/webhooks", { data: { url: webhookUrl, events: ["call.failed"], format: "slack" } }), 201);
  return { callId: call.id, approvalCallId: approval.call.id, confirmationCallId: confirmation.call.id, packId: pack.id, packName, packFolder, persona, webhookId: webhook.id, webhookUrl };
}

let seeded: Seeded | undefined;

test.beforeAll(async ({ browser }, testInfo) => {
  const { baseURL, storageState, extraHTTPHeaders } = testInfo.project.use;
  const context = await browser.newContext({ baseURL, storageState, extraHTTPHeaders });
  try {
    seeded = await seed(context.request);
  } finally {
    await context.close();
  }
});

// The call awaiting approval and the one awaiting confirmation would otherwise wait in later specs'
// queues: cancel both (the requester may), discard the staged pack and delete the webhook.
test.afterAll(async ({ browser }, testInfo) => {
  if (!seeded) return;
  const { baseURL, storageState, extraHTTPHeaders } = testInfo.project.use;
  const context = await browser.newContext({ baseURL, storageState, extraHTTPHeaders });
  try {
    for (const callId of [seeded.approvalCallId, seeded.confirmationCallId]) await expectStatus(await context.request.post(`/api/v1/calls/${callId}/cancel`), 200);
    await expectStatus(await context.request.delete(`/api/v1/packs/${seeded.packId}`), 200);
    await expectStatus(await context.request.delete(`/api/v1/webhooks/${seeded.webhookId}`), 200);
  } finally {
    await context.close();
    fs.rmSync(seeded.packFolder, { recursive: true, force: true });
  }
});

/** The page's own width: nothing may reach past it. */
async function expectNoSidewaysScroll(page: Page, width: number): Promise<void> {
  const box = await page.evaluate(() => ({ scrollWidth: document.scrollingElement!.scrollWidth, clientWidth: document.scrollingElement!.clientWidth }));
  expect(box.clientWidth).toBe(width);
  expect(box.scrollWidth, "the page scrolls sideways").toBeLessThanOrEqual(box.clientWidth);
}

/** Every table frame whose rows stack at this width (below md): none scrolls sideways inside itself. */
async function expectStackedTables(page: Page): Promise<void> {
  const overflowing = await page.locator("[data-table-frame]").evaluateAll((frames) => frames.filter((frame) => frame.scrollWidth > frame.clientWidth).map((frame) => frame.querySelector("caption")?.textContent ?? "a table"));
  expect(overflowing, "tables that scroll sideways").toEqual([]);
}

/** `locator` is visible and lies within the screen's width once scrolled to vertically; the page is not scrolled sideways. */
async function expectWithinWidth(locator: Locator, width: number): Promise<void> {
  await expect(locator).toBeVisible();
  await locator.scrollIntoViewIfNeeded();
  const box = await locator.boundingBox();
  expect(box).not.toBeNull();
  expect(box!.x).toBeGreaterThanOrEqual(0);
  expect(box!.x + box!.width).toBeLessThanOrEqual(width);
  expect(await locator.page().evaluate(() => window.scrollX)).toBe(0);
}

/** The navigation at this width: the Menu button below lg, the link bar and the signed-in person from lg up. */
async function expectNavigation(page: Page, width: number): Promise<void> {
  const menu = page.getByRole("button", { name: "Menu" });
  const bar = page.getByRole("navigation", { name: "Main" });
  if (width < MENU_BELOW) {
    await expectWithinWidth(menu, width);
    await expect(menu).toHaveAttribute("aria-expanded", "false");
    await expect(bar).toBeHidden();
    await expect(page.getByTestId("signed-in-as")).toBeHidden();
  } else {
    await expect(menu).toBeHidden();
    await expectWithinWidth(bar.getByRole("link", { name: "Skills" }), width);
    await expectWithinWidth(bar.getByRole("link", { name: "Workers" }), width);
    await expect(page.getByTestId("signed-in-as")).toHaveText(`${E2E_ADMIN.email}admin`);
    await expectWithinWidth(page.getByRole("button", { name: "Sign out" }), width);
  }
}

for (const width of WIDTHS) {
  test.describe(`at ${width} px`, () => {
    test.use({ viewport: { width, height: 844 } });

    for (const check of PAGES) {
      test(`${check.name}: no sideways scroll, its key control and the navigation on screen`, async ({ page, browser, baseURL }) => {
        let target = page;
        if (check.signedOut) {
          const context = await browser.newContext({ baseURL, viewport: { width, height: 844 }, storageState: { cookies: [], origins: [] } });
          target = await context.newPage();
        }
        try {
          await target.goto(check.path(seeded!));
          await expectWithinWidth(check.key(target, seeded!), width);
          if (check.fits) await expectWithinWidth(check.fits(target, seeded!), width);
          if (!check.signedOut) await expectNavigation(target, width);
          if (width < 768) await expectStackedTables(target);
          await expectNoSidewaysScroll(target, width);
        } finally {
          if (check.signedOut) await target.context().close();
        }
      });
    }
  });
}

test.describe("the phone menu", () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test("opens from the keyboard, lists every section and who is signed in, and closes with Escape or a followed link", async ({ page }) => {
    await page.goto("/calls");
    const menu = page.getByRole("button", { name: "Menu" });
    await menu.focus();
    await page.keyboard.press("Enter");
    await expect(menu).toHaveAttribute("aria-expanded", "true");
    const panel = page.locator(`#${await menu.getAttribute("aria-controls")}`);
    const nav = panel.getByRole("navigation", { name: "Main" });
    await expect(nav.getByRole("link")).toHaveText(["Skills", "Calls", /^Approvals\d*$/, "Personas", "Tokens", "Users", "Secrets", "Packs", "Webhooks", "Audit", "Loader", "Workers", "API reference"]);
    await expect(nav.getByRole("link", { name: "Calls" })).toHaveAttribute("aria-current", "page");
    // Opening moves focus to the first section.
    await expect(nav.getByRole("link", { name: "Skills" })).toBeFocused();
    await expect(panel.getByTestId("menu-signed-in-as")).toHaveText(`Signed in as${E2E_ADMIN.email}admin`);
    await expect(panel.getByRole("button", { name: "Sign out" })).toBeVisible();
    for (const link of await nav.getByRole("link").all()) await expectWithinWidth(link, 390);
    await expectNoSidewaysScroll(page, 390);

    // Escape closes it and gives focus back to the button.
    await page.keyboard.press("Escape");
    await expect(menu).toHaveAttribute("aria-expanded", "false");
    await expect(panel).toBeHidden();
    await expect(menu).toBeFocused();

    // Tab walks from the button into the open menu; following a link closes it on the new page.
    await page.keyboard.press("Enter");
    await expect(nav.getByRole("link", { name: "Skills" })).toBeFocused();
    await page.keyboard.press("Tab");
    await expect(nav.getByRole("link", { name: "Calls" })).toBeFocused();
    await page.keyboard.press("Tab");
    await expect(nav.getByRole("link", { name: /^Approvals/ })).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(/\/approvals$/);
    await expect(menu).toHaveAttribute("aria-expanded", "false");
    await expect(panel).toBeHidden();

    // A click outside closes it too (the panel ends well above the screen's bottom).
    await menu.click();
    await expect(menu).toHaveAttribute("aria-expanded", "true");
    await page.mouse.click(195, 830);
    await expect(menu).toHaveAttribute("aria-expanded", "false");
  });
});

test.describe("a call at 390 px", () => {
  test.use({ viewport: { width: 390, height: 844 } });

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
    await expectNoSidewaysScroll(page, 390);
  });
});

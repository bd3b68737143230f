import fs from "node:fs";
import { expect, test, type Page } from "@playwright/test";
import { E2E_ADMIN } from "./support/e2e-admin";

/**
 * The Audit page (issue 14 point 6) at a desktop's width and a phone's: an entry's details open in
 * place from a keyboard-usable Show/Hide button (aria-expanded) and push the rows below them down;
 * the person, skill and action filters are applied from the form into the page's URL (so the view can
 * be shared) and read back from it; the filtered trail downloads as CSV and JSON lines, the same bytes
 * the export route answers. At 390 px each entry is a block of `label: value` lines and nothing
 * scrolls sideways.
 */

type Entry = { id: number; action: string; actor: string; skill: string | null; callId: string | null; details: Record<string, unknown> };

/** Runs slow_echo to its end as the admin and returns the call's id: its audit entries are the test's data. */
async function seedCall(page: Page, message: string): Promise<string> {
  const response = await page.request.post("/api/v1/skills/slow_echo/calls", { data: { args: { message, lines: 1 }, wait: true } });
  expect(response.status()).toBe(200);
  return ((await response.json()) as { call: { id: string } }).call.id;
}

/** The entries the API answers for `query` (the same filters the page shows). */
async function entriesOf(page: Page, query: string): Promise<Entry[]> {
  const response = await page.request.get(`/api/v1/audit?${query}`);
  expect(response.status()).toBe(200);
  return ((await response.json()) as { entries: Entry[] }).entries;
}

/** A URL matcher for exactly `path` (with its query) on the console under test. */
function exactly(path: string): RegExp {
  return new RegExp(`^https?://[^/]+${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`);
}

async function expectWithinWidth(page: Page, width: number): Promise<void> {
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
}

for (const width of [1280, 390]) {
  test.describe(`at ${width} px`, () => {
    test.use({ viewport: { width, height: 900 } });

    test("filters by person, skill and action through the URL, expands details in place, and exports", async ({ page }) => {
      const callId = await seedCall(page, `audit-${width}`);
      await page.goto("/audit");
      const table = page.getByRole("table", { name: "Audit entries, newest first" });
      await expect(table.getByTestId("audit-row").first()).toBeVisible();

      // The form's filters go into the URL under the API's names.
      await page.getByRole("textbox", { name: "Person" }).fill(E2E_ADMIN.email);
      await page.getByRole("textbox", { name: "Skill" }).fill("slow_echo");
      await page.getByRole("textbox", { name: "Action" }).fill("call.requested");
      await page.getByRole("button", { name: "Filter", exact: true }).click();
      await expect(page).toHaveURL(exactly(`/audit?actor=${encodeURIComponent(E2E_ADMIN.email)}&skill=slow_echo&action=call.requested`));
      const requested = await entriesOf(page, `actor=${encodeURIComponent(E2E_ADMIN.email)}&skill=slow_echo&action=call.requested`);
      expect(requested.length).toBeGreaterThanOrEqual(1);
      await expect(table.getByTestId("audit-row")).toHaveCount(requested.length);
      await expect(table.getByTestId("audit-row").first()).toContainText("call.requested");

      // A shared address opens the same view, its fields filled in; an action prefix keeps the call's steps.
      await page.goto(`/audit?callId=${callId}&action=call.*`);
      await expect(page.getByRole("textbox", { name: "Call ID" })).toHaveValue(callId);
      await expect(page.getByRole("textbox", { name: "Action" })).toHaveValue("call.*");
      const steps = await entriesOf(page, `callId=${callId}&action=call.*`);
      expect(steps.map((entry) => entry.action)).toContain("call.requested");
      expect(steps.length).toBeGreaterThanOrEqual(2);
      const rows = table.getByTestId("audit-row");
      await expect(rows).toHaveCount(steps.length);

      // The newest step's details open in place, by keyboard, and push the next row down rather than cover it.
      const newest = steps[0]!;
      const toggle = page.getByRole("button", { name: `Show details of entry ${newest.id}` });
      await expect(toggle).toHaveAttribute("aria-expanded", "false");
      await toggle.focus();
      await page.keyboard.press("Enter");
      await expect(page.getByRole("button", { name: `Hide details of entry ${newest.id}` })).toHaveAttribute("aria-expanded", "true");
      const details = page.getByRole("cell", { name: `Details of entry ${newest.id}`, exact: true });
      await expect(details).toBeVisible();
      await expect(details.locator("pre")).toHaveText(JSON.stringify(newest.details, null, 2));
      await expect(details).toContainText(callId);
      const detailsBox = (await details.boundingBox())!;
      expect(detailsBox.x + detailsBox.width).toBeLessThanOrEqual(width);
      await expect(async () => {
        const nextBox = (await rows.nth(1).boundingBox())!;
        expect(nextBox.y).toBeGreaterThanOrEqual(detailsBox.y + detailsBox.height);
      }).toPass();
      await expectWithinWidth(page, width);
      await page.keyboard.press("Space");
      await expect(page.getByRole("button", { name: `Show details of entry ${newest.id}` })).toHaveAttribute("aria-expanded", "false");
      await expect(details).toHaveCount(0);

      // Both downloads carry the filtered trail, byte for byte as the export route answers it.
      for (const [link, format] of [
        ["CSV", "csv"],
        ["JSON lines", "jsonl"],
      ] as const) {
        const downloading = page.waitForEvent("download");
        await page.getByRole("group", { name: "Export the filtered trail" }).getByRole("link", { name: link, exact: true }).click();
        const download = await downloading;
        expect(download.suggestedFilename()).toMatch(new RegExp(`^audit-\\d{8}-\\d{6}\\.${format}$`));
        const text = fs.readFileSync((await download.path())!, "utf8");
        const expected = await (await page.request.get(`/api/v1/audit/export?format=${format}&action=call.*&callId=${callId}`)).text();
        expect(text).toBe(expected);
        const records = format === "csv" ? text.split("\r\n").slice(1, -1) : text.split("\n").slice(0, -1);
        expect(records.map((record) => Number(record.slice(format === "csv" ? 0 : 6).split(/[,"]/)[0]))).toEqual(steps.map((entry) => entry.id));
      }

      // A row's funnel narrows further; Clear shows everything again.
      await rows.nth(0).getByRole("button", { name: `Show only the ${newest.action} entries` }).click();
      await expect(page).toHaveURL(exactly(`/audit?action=${newest.action}&callId=${callId}`));
      await expect(rows).toHaveCount(1);
      await page.getByRole("button", { name: "Clear" }).click();
      await expect(page).toHaveURL(exactly("/audit"));
      await expect(page.getByRole("textbox", { name: "Call ID" })).toHaveValue("");
      await expectWithinWidth(page, width);
    });
  });
}

test.describe("at 390 px", () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test("an entry is a block of label: value lines, and a refused filter is marked on its field", async ({ page }) => {
    const callId = await seedCall(page, "audit-narrow");
    await page.goto(`/audit?callId=${callId}&action=call.requested`);
    const row = page.getByTestId("audit-row");
    await expect(row).toHaveCount(1);
    for (const label of ["Time", "Action", "Actor", "Skill", "Call", "Digest", "Details"]) await expect(row.getByText(label, { exact: true })).toBeVisible();
    await expect(row.getByRole("cell").nth(2)).toContainText(E2E_ADMIN.email);
    const box = (await row.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    await expectWithinWidth(page, 390);

    await page.getByRole("textbox", { name: "Action" }).fill("Call Requested");
    await page.getByRole("button", { name: "Filter", exact: true }).click();
    await expect(page.getByRole("textbox", { name: "Action" })).toHaveAttribute("aria-invalid", "true");
    await expect(page.getByText("An action is lower-case words joined by dots (approval.signed), or a prefix ending in .* (approval.*).")).toBeVisible();
    await expect(page).toHaveURL(exactly(`/audit?callId=${callId}&action=call.requested`));
  });
});

import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { createPerson, signInPage } from "./support/people";

/**
 * The Packs page (DESIGN.md "Skill packs", issue 13): an admin stages a pack from a folder on the
 * console's host, reviews its skills and files, and enables it; the pack adds a dangerous skill, so it
 * waits for a second admin, who cannot be the one who asked — another admin signs in their own browser
 * and the skills appear. Then the first admin uninstalls it. Also checked at 390 px: no sideways scroll.
 */

function writePack(folder: string, name: string, skills: Array<{ dir: string; name: string; class: string }>): void {
  fs.mkdirSync(folder, { recursive: true });
  fs.writeFileSync(path.join(folder, "pack.json"), JSON.stringify({ name, version: "1.0.0", description: "e2e pack" }));
  for (const skill of skills) {
    const dir = path.join(folder, skill.dir);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "skill.json"), JSON.stringify({ name: skill.name, description: `e2e ${skill.class} skill`, class: skill.class, entry: "run.sh" }));
    fs.writeFileSync(path.join(dir, "run.sh"), `#!/bin/sh\ncat > /dev/null\necho '{"ok": true}'\n`, { mode: 0o755 });
  }
  // Readable by the console whatever user it runs as.
  fs.chmodSync(folder, 0o755);
}

async function noSidewaysScroll(page: Page): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
}

test("an admin stages and reviews a pack; a second admin signs its dangerous skill in; it is uninstalled", async ({ page, browser, request, baseURL }) => {
  test.setTimeout(120_000);
  const nonce = randomBytes(4).toString("hex");
  const packName = `e2e-pack-${nonce}`;
  const safe = `e2e_pack_read_${nonce}`;
  const dangerous = `e2e_pack_wipe_${nonce}`;
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "skill-console-e2e-pack-"));
  fs.chmodSync(folder, 0o755);
  writePack(folder, packName, [
    { dir: "read", name: safe, class: "safe" },
    { dir: "wipe", name: dangerous, class: "dangerous" },
  ]);
  const other = await createPerson(request, "admin", "second-admin");
  const otherContext = await signInPage(browser, baseURL!, other.email, other.password);
  try {
    await page.goto("/packs");
    await expect(page.getByRole("heading", { name: "Packs", exact: true })).toBeVisible();
    await page.getByLabel("Folder", { exact: true }).fill(folder);
    await page.getByRole("button", { name: "Stage and review" }).click();

    // The review: every skill with its change and class, every file, nothing enabled yet.
    await expect(page).toHaveURL(/\/packs\/[^/]+$/);
    await expect(page.getByRole("heading", { name: `${packName} 1.0.0` })).toBeVisible();
    await expect(page.getByTestId("pack-status").first()).toHaveAttribute("data-status", "staged");
    await expect(page.locator(`[data-testid="pack-skill"][data-skill="${dangerous}"]`)).toContainText("dangerous");
    await expect(page.locator(`[data-testid="pack-skill"][data-skill="${safe}"] [data-testid="pack-change"]`)).toHaveAttribute("data-change", "added");
    await expect(page.locator('[data-testid="pack-file"][data-path="wipe/run.sh"]')).toContainText("+echo '{\"ok\": true}'");
    expect((await request.get(`/api/v1/skills/${safe}`)).status()).toBe(404);

    // Enabling it waits for a second admin; the one who asked cannot sign.
    await page.getByRole("button", { name: `Enable ${packName} 1.0.0` }).click();
    await page.getByRole("dialog", { name: `Enable ${packName} 1.0.0?` }).getByRole("button", { name: "Enable", exact: true }).click();
    await expect(page.getByTestId("pack-status").first()).toHaveAttribute("data-status", "awaiting_approval");
    await expect(page.getByText("waits for another admin")).toBeVisible();
    await expect(page.getByRole("button", { name: `Sign the enabling of ${packName} 1.0.0` })).toHaveCount(0);

    // The second admin learns of it on the Approvals page too, and signs from the Packs page in their own browser.
    const otherPage = await otherContext.newPage();
    await otherPage.goto("/approvals");
    await expect(otherPage.getByTestId("pending-pack-approvals")).toContainText(`${packName} 1.0.0`);
    await otherPage.goto("/packs");
    const row = otherPage.locator(`[data-testid="pack-row"][data-pack="${packName}"]`);
    await expect(row).toHaveAttribute("data-status", "awaiting_approval");
    await row.getByRole("button", { name: `Sign the enabling of ${packName} 1.0.0` }).click();
    await otherPage.getByRole("dialog").getByRole("button", { name: "Sign and enable" }).click();
    await expect(row).toHaveAttribute("data-status", "enabled");
    await expect.poll(async () => (await request.get(`/api/v1/skills/${dangerous}`)).status()).toBe(200);

    // At 390 px the page does not scroll sideways.
    await otherPage.setViewportSize({ width: 390, height: 844 });
    await otherPage.reload();
    await expect(row).toBeVisible();
    await noSidewaysScroll(otherPage);
    // The row stacks on a phone: its actions are reached by scrolling down, never sideways.
    const uninstall = row.getByRole("button", { name: `Uninstall ${packName} 1.0.0` });
    await uninstall.scrollIntoViewIfNeeded();
    await expect(uninstall).toBeInViewport();
    await noSidewaysScroll(otherPage);

    // Uninstalled: its skills leave.
    await page.goto("/packs");
    const mine = page.locator(`[data-testid="pack-row"][data-pack="${packName}"][data-status="enabled"]`);
    await mine.getByRole("button", { name: `Uninstall ${packName} 1.0.0` }).click();
    await page.getByRole("dialog", { name: `Uninstall ${packName}?` }).getByRole("button", { name: "Uninstall" }).click();
    await expect(page.locator(`[data-testid="pack-row"][data-pack="${packName}"]`).first()).toHaveAttribute("data-status", "disabled");
    await expect.poll(async () => (await request.get(`/api/v1/skills/${safe}`)).status()).toBe(404);
  } finally {
    await otherContext.close();
    fs.rmSync(folder, { recursive: true, force: true });
  }
});

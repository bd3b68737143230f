import { randomBytes } from "node:crypto";
import fs from "node:fs";
import { expect, test } from "@playwright/test";
import { createPerson, signInPage } from "./support/people";

/**
 * The Personas page (issue 4 point 2): an admin creates, edits, imports (a refused document first),
 * exports and deletes personas; a viewer sees them with every change disabled and the reason why.
 */

test("an admin creates, edits, imports, exports and deletes personas", async ({ page }) => {
  const suffix = randomBytes(3).toString("hex");
  const name = `e2e-ops-${suffix}`;
  await page.goto("/personas");
  await expect(page.getByRole("heading", { name: "Personas", level: 1 })).toBeVisible();
  const defaultRow = page.getByTestId("persona-row-default");
  await expect(defaultRow).toContainText("read-only");
  await expect(defaultRow.getByRole("button", { name: "Delete persona default" })).toBeDisabled();

  await page.getByRole("button", { name: "New persona" }).click();
  const form = page.getByTestId("persona-form");
  await form.getByLabel("Name", { exact: true }).fill(name);
  await form.getByLabel("Permission mode").selectOption("dual-sign-required");
  await expect(form.getByText("dangerous skills after two other approvers sign")).toBeVisible();
  await form.getByRole("textbox", { name: "Allowed skills (skills.allow)" }).fill("category:ops disk_*");
  await form.getByRole("textbox", { name: "Allowed skills (skills.allow)" }).press("Enter");
  await form.getByRole("textbox", { name: "Denied skills (skills.deny)" }).fill("kill_process");
  await form.getByRole("textbox", { name: "Denied skills (skills.deny)" }).press("Enter");
  await form.getByLabel("Every category").uncheck();
  await form.getByRole("textbox", { name: "Categories this persona loads and finds" }).fill("ops");
  await form.getByRole("textbox", { name: "Categories this persona loads and finds" }).press("Enter");
  await form.getByRole("button", { name: "Create persona" }).click();
  const row = page.getByTestId(`persona-row-${name}`);
  await expect(row).toContainText("dual-sign-required");
  await expect(row).toContainText("category:ops");
  await expect(row).toContainText("kill_process");

  await row.getByRole("button", { name: `Edit persona ${name}` }).click();
  await expect(form.getByLabel("Name", { exact: true })).toBeDisabled();
  await form.getByLabel("Description", { exact: true }).fill("Edited in the browser");
  await form.getByRole("button", { name: "Save persona" }).click();
  await expect(row).toContainText("Edited in the browser");

  await page.getByRole("button", { name: "Import YAML" }).click();
  const yaml = page.getByTestId("personas-yaml");
  await yaml.fill(`- name: ${name}-imported\n  permission_mode: root\n`);
  await page.getByRole("button", { name: "Import", exact: true }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Nothing was imported" })).toContainText(`persona #1 ("${name}-imported"): permission_mode "root" must be one of`);
  await yaml.fill(`- name: ${name}-imported\n  permission_mode: mutating-with-confirm\n  skills:\n    allow: ["log_*"]\n`);
  await page.getByRole("button", { name: "Import", exact: true }).click();
  await expect(page.getByText(`Imported 1 persona: created ${name}-imported.`)).toBeVisible();
  await expect(page.getByTestId(`persona-row-${name}-imported`)).toContainText("log_*");

  const downloading = page.waitForEvent("download");
  await page.getByRole("link", { name: "Export YAML" }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe("personas.yaml");
  const exported = fs.readFileSync((await download.path())!, "utf8");
  expect(exported).toContain(`- name: ${name}\n  description: Edited in the browser\n  permission_mode: dual-sign-required\n  skills:\n    allow: [category:ops, disk_*]\n    deny: [kill_process]\n  categories: [ops]\n`);

  await row.getByRole("button", { name: `Delete persona ${name}` }).click();
  await page.getByRole("button", { name: "Delete persona", exact: true }).click();
  await expect(row).toHaveCount(0);
});

test("a viewer sees the personas with every change disabled and the reason", async ({ browser, baseURL, request }) => {
  const viewer = await createPerson(request, "viewer");
  const context = await signInPage(browser, baseURL!, viewer.email, viewer.password);
  try {
    const page = await context.newPage();
    await page.goto("/personas");
    await expect(page.getByTestId("persona-row-default")).toBeVisible();
    const reason = `Only admins change personas; ${viewer.email} is a viewer.`;
    await expect(page.getByText(reason)).toBeVisible();
    await expect(page.getByRole("button", { name: "New persona" })).toBeDisabled();
    await expect(page.getByRole("button", { name: "New persona" })).toHaveAttribute("title", reason);
    await expect(page.getByRole("button", { name: "Import YAML" })).toBeDisabled();
    await expect(page.getByRole("button", { name: "Edit persona default" })).toBeDisabled();
    await expect(page.getByRole("link", { name: "Export YAML" })).toBeVisible();
  } finally {
    await context.close();
  }
});

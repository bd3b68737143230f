import { randomBytes } from "node:crypto";
import { expect, test } from "@playwright/test";

/**
 * ongrid persona `.md` import on the Personas page (DESIGN.md "Integrations", issue 14 point 2): an
 * admin picks files, a refused one says why and enables nothing, a good one is previewed (nothing
 * stored yet), and Import stores it.
 */

function markdown(name: string, text: string) {
  return { name, mimeType: "text/markdown", buffer: Buffer.from(text) };
}

test("an admin previews and imports an ongrid persona file, after refused ones (every refused file named)", async ({ page }) => {
  const suffix = randomBytes(3).toString("hex");
  const name = `e2e-disk-${suffix}`;
  await page.goto("/personas");
  await expect(page.getByRole("heading", { name: "Personas", level: 1 })).toBeVisible();
  await page.getByRole("button", { name: "Import ongrid .md" }).click();
  const dialog = page.getByTestId("ongrid-import");
  await expect(dialog.getByRole("heading", { name: "Import ongrid personas" })).toBeVisible();
  const files = dialog.getByLabel("Persona files (.md)");

  await files.setInputFiles(markdown("wide.md", `---\nname: ${name}\ndescription: wide\nwhen_to_use: never\ntools: [host_*]\n---\n`));
  await expect(dialog.getByRole("alert").filter({ hasText: "Nothing was imported" })).toContainText(
    'wide.md: tools[0] "host_*": ongrid allows only the tool of exactly that name, and here it would be a pattern allowing more skills',
  );
  await expect(dialog.getByRole("button", { name: "Import", exact: true })).toBeDisabled();
  // Several refused files: each one's reason, in one answer.
  await files.setInputFiles([
    markdown("wide.md", `---\nname: ${name}\ndescription: wide\nwhen_to_use: never\ntools: [host_*]\n---\n`),
    markdown("plain.md", "# just markdown\n"),
  ]);
  const refused = dialog.getByRole("alert").filter({ hasText: "Nothing was imported" });
  await expect(refused).toContainText("2 files cannot be imported:");
  await expect(refused.getByRole("listitem")).toHaveText([
    'wide.md: tools[0] "host_*": ongrid allows only the tool of exactly that name, and here it would be a pattern allowing more skills; list the skills by name',
    "plain.md: is not an ongrid persona: it must start with a --- line opening its YAML frontmatter",
  ]);

  await files.setInputFiles(
    markdown(
      `${name}.md`,
      `---\nname: ${name}\ndescription: Disk specialist from ongrid\nwhen_to_use: disk questions\ntools: [disk_usage, stat_file]\ndisallowed_tools: ["*_restart"]\npermission_mode: mutating-with-confirm\nmodel: some/model\n---\n\nYou are the disk specialist.\n`,
    ),
  );
  const preview = dialog.getByTestId(`ongrid-preview-${name}`);
  await expect(preview).toContainText("new");
  await expect(preview).toContainText("mutating-with-confirm");
  await expect(preview).toContainText("Disk specialist from ongrid");
  await expect(preview).toContainText("disk_usage, stat_file");
  await expect(preview).toContainText("*_restart");
  await expect(preview).toContainText("Not imported (personas here have no such field): when_to_use, model.");
  await expect(preview).toContainText("Not imported: the body, ongrid's system prompt (28 characters).");
  await expect(dialog.getByRole("alert")).toHaveCount(0);
  // A preview stores nothing.
  await expect(page.getByTestId(`persona-row-${name}`)).toHaveCount(0);

  await dialog.getByRole("button", { name: "Import 1 persona" }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByText(`Imported 1 persona: created ${name}.`)).toBeVisible();
  const row = page.getByTestId(`persona-row-${name}`);
  await expect(row).toContainText("mutating-with-confirm");
  await expect(row).toContainText("disk_usage");
  await expect(row).toContainText("*_restart");
});

import { randomBytes } from "node:crypto";
import { expect, test } from "@playwright/test";

/**
 * Issue 10 point 1: listings leave out args over 64 KiB (Call.omitted), so the confirmation queue
 * shows their size and a link to the call, whose page shows them whole. A mutating disk_cleaner call
 * under a mutating-with-confirm persona waits for a confirmation; nobody confirms it, and the test
 * drops it at the end.
 */
test("a call waiting for confirmation with 70 KB of args shows their size and a link to the call", async ({ page, request }) => {
  const nonce = randomBytes(5).toString("hex");
  const persona = `confirm-${nonce}`;
  expect((await request.post("/api/v1/personas", { data: { name: persona, permission_mode: "mutating-with-confirm", skills: { allow: ["*"], deny: [] } } })).status()).toBe(201);
  const path = `/${"a".repeat(70_000)}`;
  const requested = await request.post("/api/v1/skills/disk_cleaner/calls", { data: { args: { path }, persona, wait: false } });
  expect(requested.status()).toBe(202);
  const { call } = (await requested.json()) as { call: { id: string; status: string } };
  expect(call.status).toBe("awaiting_confirmation");
  try {
    await page.goto("/approvals");
    const item = page.locator(`[data-testid="confirmation-item"][data-call-id="${call.id}"]`);
    // 70,000 characters of path and the defaults ajv fills in: a little over 68 KiB.
    await expect(item).toContainText(/Exact args of disk_cleaner: 68\.\d KiB, too large to show in a list\./);
    await item.getByRole("link", { name: "Open the call to read them whole" }).click();
    await expect(page).toHaveURL(new RegExp(`/calls/${call.id}$`));
    // The call's own page has them whole.
    await expect(page.locator("body")).toContainText(`"path": "/${"a".repeat(200)}`);
  } finally {
    await request.post(`/api/v1/calls/${call.id}/cancel`, { data: {} });
  }
});

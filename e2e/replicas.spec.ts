import { expect, test, type Page } from "@playwright/test";
import { signInPage } from "./support/people";

/**
 * Issue 11 point 2 in a browser: two replicas of the PostgreSQL console on one database, the second
 * started as README's Compose file starts one (`node scripts/start.mjs` with CONSOLE_LOCAL_WORKER=false;
 * e2e/postgres-server.mjs). The admin's session, made on the first replica, opens the second's pages
 * (no sticky sessions); a dual-sign call filed, signed and cancelled on the first shows on the second's
 * Approvals page and badge at once, carried by the approvals feed: once the feed is open the pages
 * poll only every 30 s, and every step below must show within 5 s.
 */

const SKILL = "wipe_cache";
const REPLICA_URL = `http://127.0.0.1:${process.env.E2E_REPLICA_PORT}`;

// The project sends Origin = the first replica with every request; a page of the second must send its
// own (Chromium refuses a subresource request whose Origin names another site: ERR_INVALID_ARGUMENT).
// The API calls made on the first replica below name theirs.
test.use({ extraHTTPHeaders: { origin: REPLICA_URL } });
/** Longest wait for a change to show on the other replica: well under the 30 s poll the feed leaves. */
const LIVE_MS = 5_000;

function approvalCard(page: Page, callId: string) {
  return page.locator(`[data-testid="approval-card"][data-call-id="${callId}"]`);
}

/** The pending count the second replica's badge shows (0 when it shows none). */
async function badgeCount(page: Page): Promise<number> {
  const badge = page.getByTestId("approvals-badge");
  return (await badge.count()) === 0 ? 0 : Number(await badge.first().textContent());
}

test("a second replica's approvals page and badge follow a call filed, signed and cancelled on the first", async ({ page, request, browser, baseURL }) => {
  test.skip(test.info().project.name !== "chromium-postgresql", "two replicas share a database only on PostgreSQL");
  test.setTimeout(180_000);
  const replicaUrl = REPLICA_URL;
  const onFirst = { origin: baseURL! };
  // The second replica starts after the first answers: wait for it (401: up, nobody signed in).
  await expect
    .poll(async () => {
      try {
        return (await fetch(`${replicaUrl}/api/v1/auth/session`)).status;
      } catch {
        return 0;
      }
    }, { timeout: 120_000 })
    .toBe(401);
  // No local worker on the second replica: one live worker named "local" (the first replica's), not two.
  const workers = (await (await request.get("/api/v1/workers")).json()) as { workers: Array<{ name: string; state: string }> };
  expect(workers.workers.filter((worker) => worker.state === "live" && worker.name === "local")).toHaveLength(1);

  const nonce = `e2e-replicas-${Date.now()}`;
  const persona = `dual-sign-${nonce}`;
  const created = await request.post("/api/v1/personas", {
    headers: onFirst,
    data: { name: persona, description: "e2e: dangerous skills after two signatures", permission_mode: "dual-sign-required", skills: { allow: ["*"], deny: [] } },
  });
  expect(created.status(), await created.text()).toBeLessThan(300);
  const signer = { email: `replica-signer-${nonce}@console.local`, password: `e2e-password-${nonce}` };
  const made = await request.post("/api/v1/users", { headers: onFirst, data: { ...signer, role: "approver" } });
  expect(made.status(), await made.text()).toBe(201);
  const signerContext = await signInPage(browser, baseURL!, signer.email, signer.password);
  try {
    // The admin's session, made on the first replica, on the second's Approvals page.
    await page.goto(`${replicaUrl}/approvals`);
    await expect(page.getByRole("heading", { name: "Approvals", exact: true })).toBeVisible();
    await expect(page.locator("header[data-approval-feed]")).toHaveAttribute("data-approval-feed", "open");
    // Past the first polls (2 s and 5 s) scheduled before the feed opened: from here the pages poll every 30 s.
    await page.waitForTimeout(6_500);
    const before = await badgeCount(page);

    // Filed on the first replica: the card and the count appear on the second.
    const filed = await request.post(`/api/v1/skills/${SKILL}/calls`, { headers: onFirst, data: { args: { nonce }, persona, wait: false } });
    expect(filed.status(), await filed.text()).toBe(202);
    const callId = ((await filed.json()) as { call: { id: string } }).call.id;
    const card = approvalCard(page, callId);
    await expect(card.getByTestId("approval-signatures")).toContainText("0 of 2 signatures", { timeout: LIVE_MS });
    await expect.poll(() => badgeCount(page), { timeout: LIVE_MS }).toBe(before + 1);

    // Signed on the first replica by another approver: the signature shows on the second.
    const approvalId = await card.getAttribute("data-approval-id");
    const signed = await signerContext.request.post(`${baseURL}/api/v1/approvals/${approvalId}/sign`, { headers: onFirst, data: {} });
    expect(signed.status(), await signed.text()).toBe(200);
    await expect(card.getByTestId("approval-signatures")).toContainText(`1 of 2 signatures`, { timeout: LIVE_MS });
    await expect(card.getByTestId("approval-signatures")).toContainText(signer.email);

    // Cancelled on the first replica by its requester: the card leaves the pending list and the count drops.
    const cancelled = await request.post(`/api/v1/calls/${callId}/cancel`, { headers: onFirst, data: {} });
    expect(cancelled.status(), await cancelled.text()).toBe(200);
    await expect(card).toHaveCount(0, { timeout: LIVE_MS });
    await expect.poll(() => badgeCount(page), { timeout: LIVE_MS }).toBe(before);
  } finally {
    await signerContext.close();
  }
});

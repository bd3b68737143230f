import { randomBytes } from "node:crypto";
import fs from "node:fs";
import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import { createPerson, signInPage } from "./support/people";

/**
 * Issue 4 point 7: dual-sign in three browser contexts. An approver requests a dangerous call
 * (e2e/fixtures/skills/e2e/wipe_cache) under a dual-sign-required persona from the run panel; their
 * own Sign is refused (disabled with the reason, and 403 from the API); two other approvers sign in
 * their own contexts, each seeing the other's signature arrive; the call runs exactly once (one line in
 * its /tmp marker, one call) and its stderr appears on the call page in all three contexts.
 */

const SKILL = "wipe_cache";

function markerFile(nonce: string): string {
  return `/tmp/skill-console-e2e-wipe-${nonce}.log`;
}

function approvalCard(page: Page, callId: string) {
  return page.locator(`[data-testid="approval-card"][data-call-id="${callId}"]`);
}

async function signFrom(page: Page, callId: string) {
  const card = approvalCard(page, callId);
  await card.getByRole("button", { name: "Sign", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: `Sign ${SKILL}?` });
  await dialog.getByRole("button", { name: "Sign", exact: true }).click();
  return dialog;
}

test("a dangerous call runs once after two other approvers sign, and all three see its stderr", async ({ browser, request, baseURL }) => {
  // Three signed-in browsers and a dozen page loads: well beyond the suite's 60 s on a busy 2-core machine.
  test.setTimeout(180_000);
  const nonce = `e2e-${randomBytes(5).toString("hex")}`;
  const persona = `dual-sign-${nonce}`;
  const contexts: BrowserContext[] = [];
  try {
    // The admin (the suite's storage state) seeds a dual-sign-required persona and three approvers.
    const created = await request.post("/api/v1/personas", {
      data: { name: persona, description: "e2e: dangerous skills after two signatures", permission_mode: "dual-sign-required", skills: { allow: ["*"], deny: [] } },
    });
    expect(created.status(), await created.text()).toBeLessThan(300);
    const [requester, first, second] = await Promise.all([
      createPerson(request, "approver", "requester"),
      createPerson(request, "approver", "first"),
      createPerson(request, "approver", "second"),
    ]);
    for (const person of [requester, first, second]) contexts.push(await signInPage(browser, baseURL!, person.email, person.password));
    const [requesterContext, firstContext, secondContext] = contexts as [BrowserContext, BrowserContext, BrowserContext];

    // The requester picks the persona; the run panel says what the policy will do before Run.
    const requesterPage = await requesterContext.newPage();
    await requesterPage.goto(`/skills/${SKILL}`);
    await requesterPage.getByLabel("Run as persona").selectOption(persona);
    await expect(requesterPage.getByTestId("policy-preview")).toContainText("run after two distinct approvers sign");
    await requesterPage.getByRole("textbox", { name: /^Nonce/ }).fill(nonce);
    await requesterPage.getByRole("button", { name: "Run", exact: true }).click();

    await expect(requesterPage).toHaveURL(/\/calls\/[^/?]+$/);
    const callId = decodeURIComponent(new URL(requesterPage.url()).pathname.split("/").pop()!);
    await expect(requesterPage.locator("[data-status]").first()).toHaveAttribute("data-status", "awaiting_approval");
    const waiting = requesterPage.getByTestId("call-waiting");
    await expect(waiting).toContainText("Waiting for two approvers");
    await expect(waiting.getByTestId("approval-signatures")).toContainText("0 of 2 signatures");
    await expect(requesterPage.getByTestId("call-persona")).toHaveText(persona);
    await expect(requesterPage.getByTestId("call-digest")).toHaveText(/^[0-9a-f]{64}$/);

    // The requester's own Sign is refused: disabled with the reason, and 403 from the API.
    const requesterQueue = await requesterContext.newPage();
    await requesterQueue.goto("/approvals");
    const ownCard = approvalCard(requesterQueue, callId);
    await expect(ownCard.getByRole("button", { name: "Sign", exact: true })).toBeDisabled();
    await expect(ownCard.getByRole("button", { name: "Deny", exact: true })).toBeDisabled();
    await expect(ownCard.getByTestId("approval-block-reason")).toContainText("you requested this call");
    await expect(ownCard.getByTestId("approval-args")).toContainText(`"nonce": "${nonce}"`);
    const approvalId = await ownCard.getAttribute("data-approval-id");
    expect(approvalId).toBeTruthy();
    const refused = await requesterContext.request.post(`/api/v1/approvals/${approvalId}/sign`, { data: {} });
    expect(refused.status(), await refused.text()).toBe(403);

    // The first approver signs; their buttons then say they signed, and everyone sees 1 of 2.
    const firstPage = await firstContext.newPage();
    await firstPage.goto("/approvals");
    await expect(approvalCard(firstPage, callId).getByTestId("approval-signatures")).toContainText("0 of 2 signatures");
    const firstDialog = await signFrom(firstPage, callId);
    await expect(firstDialog).toBeHidden();
    await expect(approvalCard(firstPage, callId).getByTestId("approval-block-reason")).toContainText("you signed at");
    await expect(approvalCard(firstPage, callId).getByRole("button", { name: "Sign", exact: true })).toBeDisabled();
    await expect(ownCard.getByTestId("approval-signatures")).toContainText(`1 of 2 signatures`);
    await expect(ownCard.getByTestId("approval-signatures")).toContainText(first.email);
    await expect(waiting.getByTestId("approval-signatures")).toContainText("1 of 2 signatures");
    // One signature does not release the call: it still waits, its approval pending with that one signature.
    const afterFirst = await request.get(`/api/v1/calls/${callId}?events=none`);
    expect(afterFirst.status(), await afterFirst.text()).toBe(200);
    expect(((await afterFirst.json()) as { call: { status: string } }).call.status).toBe("awaiting_approval");
    const pending = await request.get(`/api/v1/approvals?callId=${encodeURIComponent(callId)}`);
    expect(pending.status(), await pending.text()).toBe(200);
    const pendingApprovals = ((await pending.json()) as { approvals: Array<{ id: string; status: string; signatures: Array<{ by: string }> }> }).approvals;
    expect(pendingApprovals.map((approval) => [approval.id, approval.status, approval.signatures.map((signature) => signature.by)])).toEqual([[approvalId, "pending", [first.email]]]);

    // The second approver's page picks up the first signature live, then gives the deciding one,
    // which opens the call's live timeline.
    const secondPage = await secondContext.newPage();
    await secondPage.goto("/approvals");
    await expect(approvalCard(secondPage, callId).getByTestId("approval-signatures")).toContainText(first.email);
    await signFrom(secondPage, callId);
    await expect(secondPage).toHaveURL(new RegExp(`/calls/${callId}$`));

    // The call runs, and its stderr appears for all three: the requester's page moves on by itself.
    await firstPage.goto(`/calls/${callId}`);
    for (const page of [requesterPage, firstPage, secondPage]) {
      const timeline = page.getByRole("log", { name: "stderr timeline" });
      await expect(timeline).toContainText(`wipe_cache: wiping cache ${nonce} (1/3)`);
      await expect(timeline).toContainText(`wipe_cache: done, 3 entries wiped for ${nonce}`);
      await expect(page.locator("[data-status]").first()).toHaveAttribute("data-status", "succeeded");
      await expect(page.getByTestId("call-approval")).toContainText("2 of 2 signatures");
    }

    // Exactly once: one line in the marker the skill appends to, one call of the skill with this nonce.
    expect(fs.readFileSync(markerFile(nonce), "utf8").trim().split("\n")).toHaveLength(1);
    const calls = (await (await request.get(`/api/v1/calls?skill=${SKILL}&limit=100`)).json()) as { calls: Array<{ id: string; args: { nonce?: string } }> };
    expect(calls.calls.filter((call) => call.args.nonce === nonce).map((call) => call.id)).toEqual([callId]);
    const approvals = (await (await request.get("/api/v1/approvals?status=approved")).json()) as { approvals: Array<{ id: string; signatures: Array<{ by: string }> }> };
    const approved = approvals.approvals.find((approval) => approval.id === approvalId);
    expect(approved?.signatures.map((signature) => signature.by).sort()).toEqual([first.email, second.email].sort());
  } finally {
    await Promise.all(contexts.map((context) => context.close()));
    fs.rmSync(markerFile(nonce), { force: true });
  }
});

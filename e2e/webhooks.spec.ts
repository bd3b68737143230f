import { createHmac, randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "@playwright/test";
import { E2E_ADMIN } from "./support/e2e-admin";

/**
 * The Webhooks page (DESIGN.md "Integrations"; admins only), against a real receiver on loopback: an
 * admin adds a destination, copies its secret (shown once), sends a test that arrives signed with it,
 * reads the delivery log, disables it and deletes it after confirming; the page works at 390 px.
 */

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

test("an admin adds a webhook, sends a signed test, reads the delivery log, disables and deletes it", async ({ page }) => {
  const received: Received[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString("utf8") });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook-${test.info().project.name}`;
  try {
    await page.goto("/webhooks");
    await expect(page.getByRole("heading", { name: "Webhooks", level: 1 })).toBeVisible();
    const form = page.getByRole("form", { name: "New webhook" });
    await form.getByLabel("Address").fill(url);
    await form.getByLabel("Approval expired").uncheck();
    await form.getByRole("button", { name: "Add webhook" }).click();

    const secretBox = page.getByTestId("new-webhook-secret-box");
    await expect(secretBox).toContainText("it will not be shown again");
    const secret = await page.getByTestId("new-webhook-secret").inputValue();
    expect(secret).toMatch(/^whsec_/);
    await secretBox.getByRole("button", { name: "Done, I copied it" }).click();
    await expect(secretBox).toHaveCount(0);

    const card = page.getByTestId("webhook-card").filter({ hasText: url });
    await expect(card.getByRole("list", { name: "Events" }).getByRole("listitem")).toHaveText(["Approval requested", "Approval decided", "Awaiting confirmation", "Call failed"]);
    await card.getByRole("button", { name: "Send test" }).click();
    const delivery = card.getByTestId("webhook-delivery").first();
    await expect(delivery).toContainText("delivered");
    await expect(delivery).toContainText("Test");
    await expect(delivery).toContainText("Last answer: 204");
    expect(received).toHaveLength(1);
    const [ping] = received;
    expect(ping!.headers["x-console-event"]).toBe("ping");
    expect(ping!.headers["x-console-signature"]).toBe(`sha256=${createHmac("sha256", secret).update(ping!.body).digest("hex")}`);
    expect(JSON.parse(ping!.body)).toMatchObject({ event: "ping", actor: E2E_ADMIN.email, url: "/webhooks", call: null, approval: null, pack: null });
    await delivery.getByText("Payload").click();
    await expect(delivery.getByLabel(/^Payload of delivery/)).toContainText('"event": "ping"');

    // The secret is never served again.
    expect(await page.content()).not.toContain(secret);

    await card.getByRole("button", { name: "Disable" }).click();
    await expect(card.getByText("disabled", { exact: true })).toBeVisible();

    // A phone: no sideways scroll, the actions reachable.
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate(() => document.scrollingElement!.scrollWidth <= document.scrollingElement!.clientWidth)).toBe(true);
    await card.getByRole("button", { name: "Delete" }).scrollIntoViewIfNeeded();
    await card.getByRole("button", { name: "Delete" }).click();
    const dialog = page.getByRole("dialog", { name: "Delete this webhook?" });
    await expect(dialog).toContainText(url);
    await dialog.getByRole("button", { name: "Delete webhook" }).click();
    await expect(page.getByTestId("webhook-card").filter({ hasText: url })).toHaveCount(0);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

test("an approval request's link opens the Approvals page at that approval's card, also through the sign-in page", async ({ page, request, browser }) => {
  const received: string[] = [];
  const server = http.createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => {
      received.push(Buffer.concat(chunks).toString("utf8"));
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const nonce = `wh-${randomBytes(5).toString("hex")}`;
  let webhookId: string | null = null;
  let callId: string | null = null;
  try {
    const created = await request.post("/api/v1/webhooks", { data: { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/approvals`, events: ["approval.requested"] } });
    expect(created.status(), await created.text()).toBe(201);
    webhookId = ((await created.json()) as { webhook: { id: string } }).webhook.id;
    const persona = await request.post("/api/v1/personas", { data: { name: `dual-${nonce}`, description: "e2e: webhooks", permission_mode: "dual-sign-required", skills: { allow: ["*"], deny: [] } } });
    expect(persona.status(), await persona.text()).toBeLessThan(300);
    const call = await request.post("/api/v1/skills/wipe_cache/calls", { data: { args: { nonce }, persona: `dual-${nonce}`, wait: false } });
    expect(call.status(), await call.text()).toBe(202);
    callId = ((await call.json()) as { call: { id: string } }).call.id;

    const id = callId;
    await expect.poll(() => received.find((body) => body.includes(id)) ?? null).not.toBeNull();
    const payload = JSON.parse(received.find((body) => body.includes(id))!) as { url: string; approval: { id: string } };
    expect(payload.url).toBe(`/approvals#approval-${payload.approval.id}`);
    await page.goto(payload.url);
    const card = page.locator(`[data-approval-id="${payload.approval.id}"]`);
    await expect(card).toBeFocused();
    await expect(card).toBeInViewport();
    await expect(card).toHaveAttribute("data-call-id", id);

    // Signed out, the link goes through the sign-in page and still ends at the card.
    // The test runner gives new contexts the project's signed-in storage state unless told otherwise.
    const signedOut = await browser.newContext({ baseURL: test.info().project.use.baseURL, storageState: { cookies: [], origins: [] } });
    try {
      const outside = await signedOut.newPage();
      await outside.goto(payload.url);
      await expect(outside).toHaveURL(/\/login\?/);
      await outside.getByLabel("Email").fill(E2E_ADMIN.email);
      await outside.getByLabel("Password").fill(E2E_ADMIN.password);
      await outside.getByRole("button", { name: "Sign in" }).click();
      await expect(outside).toHaveURL(new RegExp(`/approvals#approval-${payload.approval.id}$`));
      await expect(outside.locator(`[data-approval-id="${payload.approval.id}"]`)).toBeFocused();
    } finally {
      await signedOut.close();
    }
  } finally {
    // Nothing left waiting for other tests' queues to count.
    if (callId) await request.post(`/api/v1/calls/${callId}/cancel`);
    await request.delete(`/api/v1/personas/dual-${nonce}`);
    if (webhookId) await request.delete(`/api/v1/webhooks/${webhookId}`);
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

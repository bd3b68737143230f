import { randomBytes } from "node:crypto";
import { request as playwrightRequest, expect, test } from "@playwright/test";
import { createPerson, signInPage } from "./support/people";

/**
 * The Workers page and the skill page's Sandbox and Workers cards (DESIGN.md "Workers and the sandbox"):
 * the console under test runs `npm start`'s local worker ("local", label "local") under bubblewrap; an
 * admin creates a worker token (shown once, with the command that starts a worker) and revokes it
 * after confirming; a viewer is told the page needs the operator role; a skill page shows its sandbox
 * declaration and which workers hold its digest.
 */

test("the Workers page lists the local worker as live, sandboxed by bwrap", async ({ page }) => {
  await page.goto("/skills");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Workers" }).click();
  await expect(page).toHaveURL(/\/workers$/);
  await expect(page.getByRole("heading", { level: 1, name: "Workers" })).toBeVisible();

  const local = page.locator('[data-testid="worker-card"][data-worker-name="local"][data-worker-state="live"]');
  await expect(local).toHaveCount(1);
  await expect(local.getByRole("heading", { name: "local" })).toBeVisible();
  await expect(local.locator("[data-worker-state]").filter({ hasText: "live" }).first()).toBeVisible();
  await expect(local.getByRole("list", { name: "Labels" })).toContainText("local");
  await expect(local.getByTestId("worker-sandbox-mode").locator('[data-sandbox-mode="bwrap"]')).toHaveText("bwrap");
  await expect(local.getByTestId("worker-limits").locator('[data-limit="memory"]')).toContainText(/^memory /);
  await expect(local.getByTestId("worker-heartbeat")).toBeVisible();
  await expect(local.getByTestId("worker-running")).toContainText(/\d+ \/ \d+ running/);

  // Its skills, with 12-character digests, behind "Show skills".
  await expect(local.getByTestId("worker-skill-count")).toContainText(/\d+ skills held/);
  await local.getByRole("button", { name: "Show skills" }).click();
  const diskUsage = local.locator('[data-testid="worker-skill"][data-skill="disk_usage"]');
  await expect(diskUsage).toBeVisible();
  await expect(diskUsage.locator("code[data-digest]")).toHaveText(/^[0-9a-f]{12}$/);
});

test("an admin creates a worker token, sees it once with the command, and revokes it after confirming", async ({ page, baseURL }) => {
  const name = `e2e-host-${randomBytes(3).toString("hex")}`;
  await page.goto("/workers");
  const section = page.getByRole("region", { name: "Worker tokens", exact: true });
  await expect(section).toBeVisible();

  // The console's own token is listed as managed by it, with no Revoke.
  const localRow = section.locator('[data-testid="worker-token-row"]').filter({ hasText: "managed by the console" });
  await expect(localRow.first()).toBeVisible();
  await expect(localRow.first().getByRole("button", { name: /Revoke/ })).toHaveCount(0);

  await section.getByLabel("Name", { exact: true }).fill(name);
  await section.getByLabel(/^Labels/).fill("gpu, eu-west");
  await section.getByRole("button", { name: "Create worker token" }).click();

  const box = section.getByTestId("new-worker-token-box");
  await expect(box).toContainText("it will not be shown again");
  const token = await box.getByTestId("new-worker-token").inputValue();
  expect(token.length).toBeGreaterThan(20);
  // Named after its token, with a state folder of its own (it also starts beside the local worker).
  const slug = name.replace(/[^A-Za-z0-9_.-]+/g, "-").replace(/^-+|-+$/g, "");
  // The token goes to a file from standard input, never into a command line, history or environment.
  await expect(box.getByTestId("token-file-command")).toHaveText(`install -D -m 600 /dev/stdin ./data/worker-${slug}.token`);
  await expect(box.getByTestId("worker-command")).toHaveText(`CONSOLE_URL=${baseURL} WORKER_NAME=${slug} WORKER_STATE_DIR=./data/worker-${slug} WORKER_TOKEN_FILE=./data/worker-${slug}.token npm run worker`);
  await expect(box.getByTestId("worker-command")).not.toContainText(token);

  const row = section.locator(`[data-testid="worker-token-row"][data-token-name="${name}"]`);
  await expect(row).toContainText("gpu");
  await expect(row).toContainText("eu-west");
  await expect(row.getByLabel("never used")).toBeVisible();
  await expect(row).toContainText("active");

  // Shown once: after a reload the token is nowhere on the page.
  await page.reload();
  await expect(row).toBeVisible();
  await expect(section.getByTestId("new-worker-token-box")).toHaveCount(0);
  await expect(page.getByText(token)).toHaveCount(0);

  await row.getByRole("button", { name: `Revoke worker token ${name}` }).click();
  const dialog = page.getByRole("dialog", { name: `Revoke worker token “${name}”?` });
  await expect(dialog).toContainText("Its workers are cut off");
  await expect(dialog).toContainText("end interrupted");
  await expect(dialog.getByTestId("revoke-affected")).toHaveText("No worker is using it now.");
  await dialog.getByRole("button", { name: "Revoke", exact: true }).click();
  await expect(dialog).toBeHidden();
  await expect(row).toContainText("revoked");
  await expect(row.getByRole("button", { name: /Revoke/ })).toHaveCount(0);
});

test("a viewer is told the Workers page needs the operator role", async ({ browser, request, baseURL }) => {
  const viewer = await createPerson(request, "viewer");
  const context = await signInPage(browser, baseURL!, viewer.email, viewer.password);
  try {
    const page = await context.newPage();
    await page.goto("/workers");
    await expect(page.getByText("Workers need the operator role")).toBeVisible();
    await expect(page.getByTestId("worker-card")).toHaveCount(0);
    await expect(page.getByRole("region", { name: "Worker tokens", exact: true })).toHaveCount(0);
  } finally {
    await context.close();
  }
});

test("the disk_usage skill page shows its sandbox declaration and the local worker holding the console's digest", async ({ page }) => {
  await page.goto("/skills/disk_usage");

  const sandbox = page.getByRole("region", { name: "Sandbox", exact: true });
  await expect(sandbox.getByTestId("sandbox-summary")).toContainText("Reads /");
  await expect(sandbox.getByTestId("sandbox-summary")).toContainText("Network: on");

  const workers = page.getByTestId("skill-workers");
  const consoleDigest = workers.getByTestId("console-digest").locator("code[data-digest]");
  await expect(consoleDigest).toHaveText(/^[0-9a-f]{12}$/);
  const digest = await consoleDigest.getAttribute("data-digest");
  expect(digest).toMatch(/^[0-9a-f]{64}$/);

  const local = workers.locator('[data-testid="skill-holder"][data-worker-name="local"]').filter({ hasText: "live" });
  await expect(local).toHaveCount(1);
  await expect(local).not.toHaveAttribute("data-drifted", /.*/);
  await expect(local.getByText("matches", { exact: true })).toBeVisible();
  await expect(local.locator("code[data-digest]")).toHaveAttribute("data-digest", digest!);
  await expect(local).not.toContainText("Drifted");
});

test("a worker holding 450 skills shows its counts, drifted and unavailable ones first, and every skill a page at a time", async ({ page, request, baseURL }) => {
  const name = `e2e-hoarder-${randomBytes(3).toString("hex")}`;
  const created = await request.post("/api/v1/worker-tokens", { data: { name } });
  expect(created.status()).toBe(201);
  const { token } = (await created.json()) as { token: string };
  const skills = Array.from({ length: 449 }, (_, i) => ({ name: `e2e-held-${String(i).padStart(3, "0")}`, digest: "a".repeat(64), available: i % 100 !== 7, reason: i % 100 === 7 ? "needs /opt/tool" : null }));
  // One skill the console holds too, with another digest: drifted.
  skills.push({ name: "listening_ports", digest: "f".repeat(64), available: true, reason: null });
  const none = { by: "none", value: null };
  const worker = await playwrightRequest.newContext({ baseURL, storageState: { cookies: [], origins: [] }, extraHTTPHeaders: { authorization: `Bearer ${token}` } });
  try {
    const registered = await worker.post("/api/v1/workers/register", {
      data: { name, labels: [], host: "e2e", version: "e2e", pid: null, concurrency: 1, sandbox: { requested: "none", mode: "none", warning: null, uid: 65534, limits: { memory: none, pids: none, cpu: none }, kill: "process-group" }, skills },
    });
    expect(registered.status()).toBe(201);
    const { worker: session } = (await registered.json()) as { worker: { id: string } };

    await page.goto("/workers");
    const card = page.locator(`[data-testid="worker-card"][data-worker-name="${name}"]`);
    await expect(card.getByTestId("worker-skill-count")).toHaveText("450 skills held · 5 unavailable · 1 drifted");
    await expect(card.getByTestId("worker-drift")).toContainText("listening_ports");
    await card.getByRole("button", { name: "Show skills" }).click();
    const rows = card.getByTestId("worker-skill");
    await expect(rows).toHaveCount(50);
    // Drifted first, then the unavailable ones, then the rest by name.
    await expect(rows.nth(0)).toHaveAttribute("data-skill", "listening_ports");
    await expect(rows.nth(0)).toHaveAttribute("data-drifted", "true");
    await expect(rows.nth(1)).toHaveAttribute("data-skill", "e2e-held-007");
    await expect(rows.nth(1)).toContainText("unavailable here: needs /opt/tool");
    await expect(rows.nth(5)).toHaveAttribute("data-skill", "e2e-held-407");
    await expect(rows.nth(6)).toHaveAttribute("data-skill", "e2e-held-000");
    await expect(card).toContainText("50 of 450 shown: drifted and unavailable first");

    await card.getByRole("button", { name: "List all 450 by name" }).click();
    const shown = card.getByTestId("worker-skills-shown");
    await expect(shown).toHaveText("200 of 450 shown, by name");
    await expect(rows.nth(0)).toHaveAttribute("data-skill", "e2e-held-000");
    await card.getByRole("button", { name: "Load 200 more" }).click();
    await expect(shown).toHaveText("400 of 450 shown, by name");
    await card.getByRole("button", { name: "Load 200 more" }).click();
    await expect(shown).toHaveText("450 of 450 shown, by name");
    await expect(rows).toHaveCount(450);
    await expect(card.getByRole("button", { name: "Load 200 more" })).toHaveCount(0);
    await expect(rows.nth(449)).toHaveAttribute("data-skill", "listening_ports");
    await expect(rows.nth(449)).toHaveAttribute("data-drifted", "true");
    // A part of the name finds a skill among them all.
    await card.getByLabel(`Filter the skills of ${name} by name`).fill("held-12");
    await expect(shown).toHaveText("10 with “held-12” in the name, by name");
    await expect(rows).toHaveCount(10);
    await expect(rows.nth(0)).toHaveAttribute("data-skill", "e2e-held-120");
    await card.getByLabel(`Filter the skills of ${name} by name`).fill("nothing-like-it");
    await expect(card).toContainText(`No skill of ${name} has “nothing-like-it” in its name.`);

    expect((await worker.delete(`/api/v1/workers/${session.id}`)).status()).toBe(204);
  } finally {
    await worker.dispose();
  }
});

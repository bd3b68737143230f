import { execFileSync } from "node:child_process";
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";

/**
 * Issue 3, point 4: run a call again with its exact args, saved presets per skill (save, conflict and
 * overwrite, invalid args, reload, rename, delete) and "Copy as curl", whose command is run for real.
 */

interface CallBody {
  call: { id: string; status: string; args: Record<string, unknown> };
}

/** Args with the characters that break naive quoting: quotes, `$`, backticks, `!`, unicode. */
const TRICKY_MESSAGE = `it's "quoted" $HOME \`id\` !! — héllo 日本`;

async function getCall(request: APIRequestContext, id: string): Promise<CallBody["call"]> {
  const response = await request.get(`/api/v1/calls/${id}`);
  expect(response.status()).toBe(200);
  return ((await response.json()) as CallBody).call;
}

/** Clicks Run on the skill page and returns the id of the call page it opens. */
async function runAndGetCallId(page: Page, previousUrl?: string): Promise<string> {
  await page.getByRole("button", { name: "Run", exact: true }).click();
  await expect(page).not.toHaveURL(previousUrl ?? /\/skills\//);
  await expect(page).toHaveURL(/\/calls\/[^/?]+$/);
  const id = new URL(page.url()).pathname.split("/").pop() ?? "";
  await expect(page.locator("[data-status]").first()).toHaveAttribute("data-status", "succeeded");
  return decodeURIComponent(id);
}

/** The JSON body between the heredoc lines of a copied curl command. */
function heredocBody(command: string): unknown {
  const lines = command.split("\n");
  const start = lines.findIndex((line) => line.endsWith("<<'JSON'"));
  const end = lines.indexOf("JSON", start + 1);
  expect(start).toBeGreaterThanOrEqual(0);
  expect(end).toBeGreaterThan(start);
  return JSON.parse(lines.slice(start + 1, end).join("\n"));
}

/** Creates an API token for the default persona, as an operator would on the Tokens page. */
async function createToken(request: APIRequestContext): Promise<string> {
  const response = await request.post("/api/v1/tokens", { data: { persona: "default", name: `curl ${Date.now()}` } });
  expect(response.status()).toBe(201);
  return ((await response.json()) as { token: string }).token;
}

/**
 * Runs `command` in bash with SKILL_CONSOLE_TOKEN set to `token` (as the README tells an operator to)
 * and curl also printing the HTTP status on a last line; returns status and body.
 */
function runCurl(command: string, token: string): { status: string; body: CallBody } {
  const out = execFileSync("bash", ["-c", `curl() { command curl -w '\\n%{http_code}' "$@"; }\n${command}`], {
    encoding: "utf8",
    timeout: 30_000,
    env: { ...process.env, SKILL_CONSOLE_TOKEN: token },
  });
  const lines = out.trimEnd().split("\n");
  const status = lines.pop() ?? "";
  return { status, body: JSON.parse(lines.join("\n")) as CallBody };
}

test("a call runs again with exactly its args, from the call page and from the calls table", async ({ page, request }) => {
  await page.goto("/skills/slow_echo");
  await page.getByRole("textbox", { name: "Message" }).fill(TRICKY_MESSAGE);
  await page.getByRole("textbox", { name: "Progress lines" }).fill("2");
  await page.getByRole("checkbox", { name: "Shout" }).check();
  const firstId = await runAndGetCallId(page);
  const first = await getCall(request, firstId);
  expect(first.args).toEqual({ message: TRICKY_MESSAGE, lines: 2, shout: true });

  await page.getByRole("link", { name: "Run again with these args" }).click();
  await expect(page).toHaveURL(`/skills/slow_echo?from=${encodeURIComponent(firstId)}`);
  await expect(page.getByTestId("args-source")).toHaveText(`Args from call ${firstId.slice(0, 12)}`);
  await expect(page.getByRole("textbox", { name: "Message" })).toHaveValue(TRICKY_MESSAGE);
  await expect(page.getByRole("textbox", { name: "Progress lines" })).toHaveValue("2");
  await expect(page.getByRole("checkbox", { name: "Shout" })).toBeChecked();
  await page.getByRole("button", { name: "Raw JSON" }).click();
  await expect(page.getByLabel("Args (JSON object)")).toHaveValue(JSON.stringify(first.args, null, 2));
  await page.getByRole("button", { name: "Form" }).click();

  const secondId = await runAndGetCallId(page, page.url());
  expect(secondId).not.toBe(firstId);
  expect((await getCall(request, secondId)).args).toEqual(first.args);

  // The same action from a row of the calls history.
  await page.goto("/calls");
  await page.getByRole("link", { name: `Run slow_echo again with the args of call ${firstId}` }).click();
  await expect(page).toHaveURL(`/skills/slow_echo?from=${encodeURIComponent(firstId)}`);
  await expect(page.getByRole("textbox", { name: "Message" })).toHaveValue(TRICKY_MESSAGE);
});

test("a call of another skill does not fill the form", async ({ page, request }) => {
  const other = await request.post("/api/v1/skills/fail_loudly/calls", { data: { args: {} } });
  const otherId = ((await other.json()) as CallBody).call.id;
  await page.goto(`/skills/slow_echo?from=${otherId}`);
  await expect(page.getByText(`Call ${otherId} ran fail_loudly, not slow_echo`)).toBeVisible();
  await expect(page.getByRole("textbox", { name: "Progress lines" })).toHaveValue("3");
});

test("presets are saved, shared, renamed and deleted", async ({ page }) => {
  const name = `e2e preset ${Date.now()}`;
  const picker = page.getByLabel("Preset", { exact: true });
  const saveDialog = page.getByRole("dialog", { name: "Save the current args as a preset" });

  await page.goto("/skills/slow_echo");

  // invalid_args: no message (required) — the server's refusal is shown in the dialog.
  await page.getByRole("button", { name: "Save as preset…" }).click();
  await saveDialog.getByLabel("Preset name").fill(name);
  await saveDialog.getByRole("button", { name: "Save preset" }).click();
  await expect(saveDialog.getByRole("alert")).toContainText("The server refused these args");
  await saveDialog.getByRole("button", { name: "Cancel" }).click();
  await expect(saveDialog).toBeHidden();

  await page.getByRole("textbox", { name: "Message" }).fill("from a preset");
  await page.getByRole("textbox", { name: "Progress lines" }).fill("4");
  await page.getByRole("button", { name: "Save as preset…" }).click();
  await saveDialog.getByLabel("Preset name").fill(name);
  await saveDialog.getByRole("button", { name: "Save preset" }).click();
  await expect(saveDialog).toBeHidden();
  await expect(picker.locator("option:checked")).toHaveText(name);

  // Same name again: 409, offered as an overwrite.
  await page.getByRole("checkbox", { name: "Shout" }).check();
  await page.getByRole("button", { name: "Save as preset…" }).click();
  await saveDialog.getByLabel("Preset name").fill(name);
  await saveDialog.getByRole("button", { name: "Save preset" }).click();
  await expect(saveDialog.getByRole("alert")).toContainText(`A preset named ${name} already exists`);
  await saveDialog.getByRole("button", { name: "Overwrite" }).click();
  await expect(saveDialog).toBeHidden();

  // Stored on the server: after a reload the form has its defaults until the preset is picked.
  await page.reload();
  await expect(page.getByRole("textbox", { name: "Message" })).toHaveValue("");
  await picker.selectOption({ label: name });
  await expect(page.getByTestId("args-source")).toHaveText(`Args from preset “${name}”`);
  await expect(page.getByRole("textbox", { name: "Message" })).toHaveValue("from a preset");
  await expect(page.getByRole("textbox", { name: "Progress lines" })).toHaveValue("4");
  await expect(page.getByRole("checkbox", { name: "Shout" })).toBeChecked();

  // Reset goes back to the defaults, and the picker no longer names a preset the args are not.
  await page.getByRole("button", { name: "Reset", exact: true }).click();
  await expect(page.getByRole("textbox", { name: "Message" })).toHaveValue("");
  await expect(page.getByTestId("args-source")).toHaveCount(0);
  await expect(picker).toHaveValue("");
  await expect(page.getByRole("button", { name: "Rename", exact: true })).toBeDisabled();
  await expect(page.getByRole("button", { name: "Delete", exact: true })).toBeDisabled();
  await picker.selectOption({ label: name });
  await expect(page.getByRole("textbox", { name: "Message" })).toHaveValue("from a preset");

  const renamed = `${name} (renamed)`;
  await page.getByRole("button", { name: "Rename", exact: true }).click();
  const renameDialog = page.getByRole("dialog", { name: `Rename preset “${name}”` });
  await renameDialog.getByLabel("Preset name").fill(renamed);
  await renameDialog.getByRole("button", { name: "Rename", exact: true }).click();
  await expect(renameDialog).toBeHidden();
  await expect(picker.locator("option:checked")).toHaveText(renamed);
  await expect(picker.locator("option", { hasText: new RegExp(`^${name}$`) })).toHaveCount(0);

  await page.getByRole("button", { name: "Delete", exact: true }).click();
  const deleteDialog = page.getByRole("dialog", { name: `Delete preset “${renamed}”?` });
  await deleteDialog.getByRole("button", { name: "Delete preset" }).click();
  await expect(deleteDialog).toBeHidden();
  await expect(picker.locator("option", { hasText: renamed })).toHaveCount(0);
  await page.reload();
  await expect(picker.locator("option", { hasText: renamed })).toHaveCount(0);
});

test("copy as curl gives a command that starts the same call", async ({ page, context, baseURL, request }) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const args = { message: TRICKY_MESSAGE, lines: 1, shout: false };
  const url = `${baseURL}/api/v1/skills/slow_echo/calls`;

  // Skill page: the current args of the form.
  await page.goto("/skills/slow_echo");
  await page.getByRole("textbox", { name: "Message" }).fill(TRICKY_MESSAGE);
  await page.getByRole("textbox", { name: "Progress lines" }).fill("1");
  await page.getByRole("button", { name: "Copy as curl" }).click();
  await expect(page.getByRole("button", { name: "Copied" })).toBeVisible();
  const fromForm = await page.evaluate(() => navigator.clipboard.readText());
  expect(fromForm).toContain(`'${url}'`);
  expect(heredocBody(fromForm)).toEqual({ args });

  const token = await createToken(request);
  const ran = runCurl(fromForm, token);
  expect(ran.status).toBe("200");
  expect(ran.body.call.status).toBe("succeeded");
  expect(ran.body.call.args).toEqual(args);

  // Call page: that call's args.
  await page.goto(`/calls/${ran.body.call.id}`);
  await page.getByRole("button", { name: "Copy as curl" }).click();
  await expect(page.getByRole("button", { name: "Copied" })).toBeVisible();
  const fromCall = await page.evaluate(() => navigator.clipboard.readText());
  expect(fromCall).toContain(`'${url}'`);
  expect(heredocBody(fromCall)).toEqual({ args });
  const again = runCurl(fromCall, token);
  expect(again.status).toBe("200");
  expect(again.body.call.args).toEqual(args);
});

test("a reopened name dialog starts empty at the instant it opens", async ({ page }) => {
  // Regression (CI flake): the dialog used to show the previous name for a moment after reopening and
  // then reset it; typing that same name in between changed nothing and left Save disabled. Record what
  // the field holds when the dialog's `open` attribute appears, before any later render could fix it.
  const saveDialog = page.getByRole("dialog", { name: "Save the current args as a preset" });
  await page.goto("/skills/slow_echo");
  await page.getByRole("button", { name: "Save as preset…" }).click();
  await saveDialog.getByLabel("Preset name").fill("typed then cancelled");
  await saveDialog.getByRole("button", { name: "Cancel" }).click();
  await expect(saveDialog).toBeHidden();

  await page.evaluate(() => {
    const record = window as unknown as { valuesAtOpen: string[] };
    record.valuesAtOpen = [];
    new MutationObserver((mutations) => {
      for (const mutation of mutations) {
        const dialog = mutation.target as HTMLDialogElement;
        if (!dialog.open) continue;
        record.valuesAtOpen.push(dialog.querySelector("input")?.value ?? "<no field>");
      }
    }).observe(document.body, { subtree: true, attributes: true, attributeFilter: ["open"] });
  });
  await page.getByRole("button", { name: "Save as preset…" }).click();
  await expect(saveDialog.getByLabel("Preset name")).toHaveValue("");
  const valuesAtOpen = await page.evaluate(
    () => (window as unknown as { valuesAtOpen: string[] }).valuesAtOpen,
  );
  expect(valuesAtOpen).toEqual([""]);
});

import { expect, test, type Page } from "@playwright/test";

/**
 * The args form generated from a skill's JSON Schema (components/schema-form): each test fills a
 * form_* fixture skill (e2e/fixtures/skills/e2e/form_*) and asserts the exact args the Run button
 * POSTs to /api/v1/skills/<name>/calls.
 */

const CALLS_PATH = /^\/api\/v1\/skills\/[^/]+\/calls$/;

/** Clicks Run and returns the `args` of the call request it sends. */
async function runAndCaptureArgs(page: Page): Promise<unknown> {
  const request = page.waitForRequest((candidate) => candidate.method() === "POST" && CALLS_PATH.test(new URL(candidate.url()).pathname));
  await page.getByRole("button", { name: "Run", exact: true }).click();
  return ((await request).postDataJSON() as { args: unknown }).args;
}

interface CallRecord {
  status: string;
  args: unknown;
  result: unknown;
}

/**
 * Clicks Run, follows the call page it opens and returns the call record the API keeps once it ends:
 * its `args`, and its `result` (the fixture echoes the args it read on stdin as `{"args": …}`).
 */
async function runAndReadCall(page: Page): Promise<CallRecord> {
  await page.getByRole("button", { name: "Run", exact: true }).click();
  await expect(page).toHaveURL(/\/calls\/[^/?]+$/);
  const id = decodeURIComponent(new URL(page.url()).pathname.split("/").pop() ?? "");
  let call: CallRecord | undefined;
  await expect
    .poll(async () => {
      const response = await page.request.get(`/api/v1/calls/${encodeURIComponent(id)}`);
      call = ((await response.json()) as { call: CallRecord }).call;
      return call.status;
    })
    .toBe("succeeded");
  return call!;
}

/** The args the skill received: the call record's args, checked against what the skill echoed. */
async function runAndReadReceivedArgs(page: Page): Promise<unknown> {
  const call = await runAndReadCall(page);
  expect(call.result).toEqual({ args: call.args });
  return call.args;
}

/** The texts of every error message the form shows. */
async function shownErrors(page: Page): Promise<string> {
  return (await page.locator('#skill-args-form [id$="__error"]').allInnerTexts()).join("\n");
}

/** The block of one field of the form (label, hint, control, errors), by its path ("targets.0.host"). */
function field(page: Page, path: string) {
  return page.locator(`[data-field="${path}"]`);
}

/** The select of a oneOf/anyOf that offers the option titled `option`. */
function optionPicker(page: Page, option: string) {
  return page.getByRole("combobox").filter({ has: page.getByRole("option", { name: option, exact: true }) });
}

test("arrays of objects, $ref/$defs, enums, multi-selects, const oneOf and maps", async ({ page }) => {
  await page.goto("/skills/form_structures");
  const targets = page.locator("fieldset#root_targets");
  const addTarget = targets.getByRole("button", { name: "Add item" });
  for (let i = 0; i < 3; i++) await addTarget.click();
  await page.locator("#root_targets_0_host").fill("a");
  await page.locator("#root_targets_1_host").fill("b");
  await page.locator("#root_targets_2_host").fill("c");
  await page.locator("#root_targets_2_port").fill("8080");
  await targets.getByRole("button", { name: "Move Target 3 up", exact: true }).click();
  await expect(page.locator("#root_targets_1_host")).toHaveValue("c");
  await targets.getByRole("button", { name: "Remove Target 1", exact: true }).click();
  await expect(page.locator("#root_targets_0_host")).toHaveValue("c");

  await page.getByLabel("Level", { exact: true }).selectOption("warn");
  await page.getByRole("checkbox", { name: "sms" }).check();
  await page.getByRole("checkbox", { name: "email" }).check();
  await page.getByLabel("Mode", { exact: true }).selectOption({ label: "Safe" });

  await page.locator("fieldset#root_labels").getByRole("button", { name: "Add property" }).click();
  await page.locator("#root_labels_newKey").fill("core");
  await page.getByLabel("Key of newKey").fill("team");
  await page.getByLabel("Key of newKey").blur();
  await expect(page.locator("#root_labels_team")).toHaveValue("core");

  expect(await runAndCaptureArgs(page)).toEqual({
    targets: [{ host: "c", port: 8080 }, { host: "b" }],
    level: "warn",
    channels: ["email", "sms"],
    mode: "safe",
    labels: { team: "core" },
  });
});

test("a const oneOf without a default starts unset and stays out of the args", async ({ page }) => {
  // Regression: the page's initial args came from rjsf's defaults, which take a oneOf's first const
  // as the default, so "mode" was sent as "fast" although the schema has no default and nobody chose.
  await page.goto("/skills/form_structures");
  await expect(page.getByLabel("Mode", { exact: true })).toHaveValue("");
  expect(await runAndCaptureArgs(page)).toEqual({});
});

test("oneOf at the root and a union type field", async ({ page }) => {
  await page.goto("/skills/form_unions");
  await optionPicker(page, "By name").selectOption({ label: "By name" });
  await page.getByRole("textbox", { name: "Name (required)" }).fill("bob");
  await field(page, "tags").getByRole("combobox").first().selectOption({ label: "array" });
  const tags = page.locator("fieldset#root_tags");
  await tags.getByRole("button", { name: "Add item" }).click();
  await tags.getByRole("button", { name: "Add item" }).click();
  await page.locator("#root_tags_0").fill("x");
  await page.locator("#root_tags_1").fill("y");

  expect(await runAndCaptureArgs(page)).toEqual({ name: "bob", tags: ["x", "y"] });
});

test("Add item by keyboard puts the focus in the new item, so typing fills it", async ({ page }) => {
  await page.goto("/skills/form_unions");
  await optionPicker(page, "By name").selectOption({ label: "By name" });
  await page.getByRole("textbox", { name: "Name (required)" }).fill("bob");
  await field(page, "tags").getByRole("combobox").first().selectOption({ label: "array" });
  const add = page.locator("fieldset#root_tags").getByRole("button", { name: "Add item" });
  await add.focus();
  await page.keyboard.press("Enter");
  await expect(page.locator("#root_tags_0")).toBeFocused();
  await page.keyboard.type("typed");
  expect(await runAndCaptureArgs(page)).toEqual({ name: "bob", tags: ["typed"] });
});

test("a union of null and two types: each type can be picked, null is sent when chosen, absent / null / \"\" stay distinct", async ({ page }) => {
  await page.goto("/skills/form_nullable_unions");
  await expect(field(page, "id").getByTestId("field-hint")).toHaveText("string or integer or null");
  await expect(field(page, "tags").getByTestId("field-hint")).toHaveText("string or array or null");
  await expect(field(page, "id").getByTestId("field-state")).toHaveText("not sent");
  const idPicker = field(page, "id").getByRole("combobox").first();
  await expect(idPicker.locator("option")).toHaveText(["string", "integer", "null"]);

  // null chosen in the picker is sent as null (rjsf drew no field for a `type: "null"` option: it stayed absent).
  await idPicker.selectOption({ label: "null" });
  await expect(field(page, "id").getByTestId("field-state")).toHaveText("null");
  // "" typed then erased in the string option is sent as "".
  await page.locator("#root_label").fill("a");
  await page.locator("#root_label").fill("");
  await expect(field(page, "label").getByTestId("field-state")).toHaveCount(0);
  // The array option: an added item left empty is "", a removed one is gone.
  await field(page, "tags").getByRole("combobox").first().selectOption({ label: "array" });
  const tags = page.locator("fieldset#root_tags");
  for (let i = 0; i < 3; i++) await tags.getByRole("button", { name: "Add item" }).click();
  await page.locator("#root_tags_0").fill("x");
  await page.locator("#root_tags_2").fill("z");
  await tags.getByRole("button", { name: "Remove Tags 3", exact: true }).click();
  // ["string","array"] without null: same for its items.
  await field(page, "words").getByRole("combobox").first().selectOption({ label: "array" });
  const words = page.locator("fieldset#root_words");
  await words.getByRole("button", { name: "Add item" }).click();
  await words.getByRole("button", { name: "Add item" }).click();
  await page.locator("#root_words_1").fill("w");

  expect(await runAndCaptureArgs(page)).toEqual({ id: null, label: "", tags: ["x", ""], words: ["", "w"] });
});

test("a union of null and two types: the other types, Set null, and Clear back to absent", async ({ page }) => {
  await page.goto("/skills/form_nullable_unions");
  const idPicker = field(page, "id").getByRole("combobox").first();
  await idPicker.selectOption({ label: "null" });
  await idPicker.selectOption({ label: "integer" });
  await page.locator("#root_id").fill("-7");
  await page.locator("#root_tags").fill("a,b");
  await page.getByRole("button", { name: "Set Label to null" }).click();
  await expect(field(page, "label").getByTestId("field-state")).toHaveText("null");
  await expect(field(page, "label").getByRole("combobox").first()).toHaveValue("2");
  await page.getByRole("button", { name: "Clear Label" }).click();
  await expect(field(page, "label").getByTestId("field-state")).toHaveText("not sent");
  await expect(page.getByRole("button", { name: "Set Words to null" })).toHaveCount(0);

  expect(await runAndCaptureArgs(page)).toEqual({ id: -7, tags: "a,b" });
});

test("oneOf at the root: the first option", async ({ page }) => {
  await page.goto("/skills/form_unions");
  await page.getByRole("textbox", { name: "Id (required)" }).fill("42");
  expect(await runAndCaptureArgs(page)).toEqual({ id: 42 });
});

test("allOf at the root and anyOf on a field", async ({ page }) => {
  await page.goto("/skills/form_root_allof");
  await page.getByRole("textbox", { name: "Path (required)" }).fill("/var/log/syslog");
  await optionPicker(page, "Since").selectOption({ label: "Since" });
  await page.getByLabel("Since", { exact: true }).fill("2024-05-01T12:00:00Z");

  expect(await runAndCaptureArgs(page)).toEqual({ path: "/var/log/syslog", window: { since: "2024-05-01T12:00:00Z" } });
});

test("formats and constraints are validated; hints, read-only and deprecated are shown", async ({ page }) => {
  await page.goto("/skills/form_scalars");
  await expect(field(page, "count").getByTestId("field-hint")).toHaveText("integer · 1–100");
  await expect(field(page, "email").getByTestId("field-hint")).toHaveText("string · email");
  await expect(field(page, "prefix").getByTestId("field-hint")).toHaveText("string · pattern ^/");
  await expect(field(page, "code").getByTestId("field-hint")).toHaveText("string · length ≥ 3");
  await expect(field(page, "owner").getByTestId("field-hint")).toHaveText("string or null");
  await expect(field(page, "region")).toContainText("read-only");
  await expect(page.getByLabel("Region", { exact: true })).toHaveAttribute("readonly", "");
  await expect(field(page, "legacy")).toContainText("deprecated");

  const sent: unknown[] = [];
  page.on("request", (request) => {
    if (request.method() === "POST" && CALLS_PATH.test(new URL(request.url()).pathname)) sent.push(request.postDataJSON());
  });
  await page.getByLabel("Email", { exact: true }).fill("nope");
  await page.getByLabel("Site", { exact: true }).fill("not a uri");
  await page.getByLabel("IP", { exact: true }).fill("999.1.1.1");
  await page.getByLabel("At", { exact: true }).fill("yesterday");
  await page.getByLabel("Prefix", { exact: true }).fill("var");
  await page.getByLabel("Code", { exact: true }).fill("ab");
  await page.getByLabel("Longitude", { exact: true }).fill("-200");
  await page.getByRole("button", { name: "Run", exact: true }).click();
  for (const name of ["email", "site", "ip", "at", "prefix", "code", "longitude"]) {
    await expect(field(page, name)).toHaveAttribute("data-invalid", "true");
  }
  await expect(field(page, "email")).toContainText("must be a valid email address");
  await expect(field(page, "ip")).toContainText("IPv4");
  await expect(field(page, "prefix")).toContainText("^/");

  await page.getByLabel("Email", { exact: true }).fill("ops@example.com");
  await page.getByLabel("Site", { exact: true }).fill("https://example.com/x");
  await page.getByLabel("IP", { exact: true }).fill("192.0.2.10");
  await page.getByLabel("At", { exact: true }).fill("2024-05-01T12:00:00Z");
  await page.getByLabel("Prefix", { exact: true }).fill("/var");
  await page.getByLabel("Code", { exact: true }).fill("abc");
  await page.getByLabel("Longitude", { exact: true }).fill("-74.01");
  await expect(page.locator("[data-invalid]")).toHaveCount(0);
  expect(sent).toEqual([]);

  expect(await runAndCaptureArgs(page)).toEqual({
    count: 10,
    email: "ops@example.com",
    site: "https://example.com/x",
    ip: "192.0.2.10",
    at: "2024-05-01T12:00:00Z",
    prefix: "/var",
    code: "abc",
    longitude: -74.01,
  });
});

test("absent, null, empty string and empty list stay distinct; numbers type as typed; a default can be cleared", async ({ page }) => {
  await page.goto("/skills/form_scalars");
  const note = page.getByLabel("Note", { exact: true });
  await note.fill("x");
  await note.fill("");
  await page.getByRole("button", { name: "Set Owner to null" }).click();
  await expect(field(page, "owner").getByTestId("field-state")).toHaveText("null");
  const items = page.locator("fieldset#root_items");
  await items.getByRole("button", { name: "Add item" }).click();
  await items.getByRole("button", { name: "Remove Items 1", exact: true }).click();
  await expect(items).toContainText("No items.");
  await page.getByRole("button", { name: "Clear Count" }).click();
  await expect(page.getByLabel("Count", { exact: true })).toHaveValue("");
  await expect(field(page, "count").getByTestId("field-state")).toHaveText("not sent");

  for (const [label, text] of [
    ["Ratio", "1.0"],
    ["Offset", "-0.5"],
    ["Longitude", "-74.01"],
  ] as const) {
    const input = page.getByLabel(label, { exact: true });
    await input.pressSequentially(text);
    await expect(input).toHaveValue(text);
    await input.blur();
    await expect(input).toHaveValue(text);
  }

  expect(await runAndCaptureArgs(page)).toEqual({ note: "", owner: null, items: [], ratio: 1, offset: -0.5, longitude: -74.01 });
});

test("the raw JSON editor is two-way, keeps what is typed and refuses invalid JSON with its position", async ({ page }) => {
  await page.goto("/skills/form_scalars");
  await page.getByLabel("Note", { exact: true }).fill('say "hi" \\o/');
  await page.getByRole("button", { name: "Raw JSON" }).click();
  const raw = page.getByLabel("Args (JSON object)");
  await expect(raw).toHaveValue(/"note": "say \\"hi\\" \\\\o\/"/);

  await raw.fill('{\n  "note": "é \\n",\n  "count": 5,\n}');
  await expect(page.getByRole("alert").filter({ hasText: "Invalid JSON at line 4, column 1" })).toBeVisible();
  await page.getByRole("button", { name: "Form", exact: true }).click();
  await expect(page.getByText("Fix the JSON before going back to the form")).toBeVisible();
  await expect(raw).toHaveValue('{\n  "note": "é \\n",\n  "count": 5,\n}');

  await raw.fill('{\n  "note": "é \\\\n",\n  "count": 5\n}');
  await page.getByRole("button", { name: "Form", exact: true }).click();
  await expect(page.getByLabel("Note", { exact: true })).toHaveValue("é \\n");
  await expect(page.getByLabel("Count", { exact: true })).toHaveValue("5");
  await page.getByLabel("Count", { exact: true }).fill("7");
  await page.getByRole("button", { name: "Raw JSON" }).click();
  await expect(raw).toHaveValue('{\n  "note": "é \\\\n",\n  "count": 7\n}');

  expect(await runAndCaptureArgs(page)).toEqual({ note: "é \\n", count: 7 });
});

test("a schema the form cannot draw falls back to the raw JSON editor with the reason", async ({ page }) => {
  await page.goto("/skills/form_broken");
  await expect(page.getByTestId("form-fallback")).toContainText("This schema cannot be shown as a form");
  await expect(page.getByTestId("form-fallback")).toContainText("word.json");
  const raw = page.getByLabel("Args (JSON object)");
  await raw.fill('{"word": "hi"');
  await expect(page.getByRole("alert").filter({ hasText: "Invalid JSON" })).toBeVisible();
  await raw.fill('{"word": "hi"}');
  expect(await runAndCaptureArgs(page)).toEqual({ word: "hi" });
});

test("the server's invalid_args errors are shown on the fields they concern", async ({ page }) => {
  await page.route("**/api/v1/skills/form_scalars/calls", (route) =>
    route.fulfill({
      status: 400,
      contentType: "application/json",
      body: JSON.stringify({
        error: {
          code: "invalid_args",
          message: "The args do not match the skill's schema.",
          details: [
            { instancePath: "/code", keyword: "minLength", params: { limit: 5 }, message: "must NOT have fewer than 5 characters" },
            { instancePath: "/email", keyword: "format", params: { format: "email" }, message: 'must match format "email"' },
          ],
        },
      }),
    }),
  );
  await page.goto("/skills/form_scalars");
  await page.getByLabel("Code", { exact: true }).fill("abcd");
  await page.getByLabel("Email", { exact: true }).fill("ops@example.com");
  expect(await runAndCaptureArgs(page)).toEqual({ count: 10, code: "abcd", email: "ops@example.com" });
  await expect(field(page, "code")).toHaveAttribute("data-invalid", "true");
  await expect(field(page, "code")).toContainText("5");
  await expect(field(page, "email")).toContainText("must be a valid email address");
  await expect(field(page, "note")).not.toHaveAttribute("data-invalid");
});

test("a oneOf of $ref'd branches told apart by a const: options named by it, the const filled and fixed, errors from the shown branch on blur", async ({ page }) => {
  await page.goto("/skills/form_branches");
  const picker = field(page, "source").getByRole("combobox").first();
  await expect(picker.locator("option")).toHaveText(["kind: disk", "kind: url"]);
  const kind = page.locator("#root_source_kind");
  await expect(kind).toHaveValue("disk");
  await expect(kind).toHaveAttribute("readonly", "");
  await picker.selectOption({ label: "kind: url" });
  await expect(kind).toHaveValue("url");
  await expect(page.locator("#root_source_path")).toHaveCount(0);

  const href = page.locator("#root_source_href");
  await href.fill("nope");
  // Not yet: the field still has the focus.
  await expect(field(page, "source.href")).not.toHaveAttribute("data-invalid");
  await href.press("Tab");
  await expect(field(page, "source.href")).toHaveAttribute("data-invalid", "true");
  await expect(field(page, "source.href")).toContainText("must be a valid URI");

  await page.getByRole("button", { name: "Run", exact: true }).click();
  await expect(href).toBeFocused();
  const errors = await shownErrors(page);
  expect(errors).toContain("must be a valid URI");
  // Nothing of the other branch: neither its const nor its required path.
  expect(errors).not.toMatch(/disk|is required|must match exactly one/i);

  await href.fill("https://example.com/a");
  await expect(page.locator("[data-invalid]")).toHaveCount(0);
  expect(await runAndReadReceivedArgs(page)).toEqual({ source: { kind: "url", href: "https://example.com/a" }, level: "only" });
});

test("an array of unions: each new item gets its branch's defaults and consts of any JSON type; a union's errors show under its picker", async ({ page }) => {
  await page.goto("/skills/form_branches");
  await expect(page.getByLabel("Level", { exact: true })).toHaveValue("only");

  const steps = page.locator("fieldset#root_steps");
  for (let i = 0; i < 3; i++) await steps.getByRole("button", { name: "Add item" }).click();
  const stepPicker = (index: number) => field(page, `steps.${index}`).getByRole("combobox").first();
  await expect(stepPicker(0).locator("option")).toHaveText(["op: 1", "op: true", "Stops the run."]);
  await expect(page.locator("#root_steps_0_op")).toHaveValue("1");
  await expect(page.locator("#root_steps_0_times")).toHaveValue("5");
  await stepPicker(1).selectOption({ label: "op: true" });
  await expect(page.locator("#root_steps_1_op")).toHaveValue("true");
  await expect(page.locator("#root_steps_1_flag")).toHaveValue("on");
  await expect(page.locator("#root_steps_1_opts")).toHaveValue('{"dry":false}');
  await stepPicker(2).selectOption({ label: "Stops the run." });
  await page.locator("#root_steps_2_reason").fill("done");

  const limitPicker = field(page, "limit").getByRole("combobox").first();
  await expect(limitPicker.locator("option")).toHaveText(["integer · ≥ 1", "Size"]);
  const limit = page.locator("#root_limit");
  await limit.fill("0");
  await limit.press("Tab");
  await expect(field(page, "limit").getByTestId("union-picker")).toContainText("must be at least 1");
  await limit.fill("3");
  await page.locator("#root_source_path").fill("/data");
  await expect(page.locator("[data-invalid]")).toHaveCount(0);

  expect(await runAndReadReceivedArgs(page)).toEqual({
    source: { kind: "disk", path: "/data" },
    steps: [{ op: 1, times: 5 }, { op: true, flag: "on", opts: { dry: false } }, { reason: "done" }],
    level: "only",
    limit: 3,
  });
});

test("read-only fields deep in objects and array items are shown, not sent; new items hold the $ref'd item defaults; a map shows key and value side by side, not sent and Clear", async ({ page }) => {
  await page.goto("/skills/form_read_only");
  await expect(page.getByLabel("Region", { exact: true })).toHaveValue("eu-west");
  await expect(page.locator("#root_meta_etag")).toHaveValue("e1");

  const targets = page.locator("fieldset#root_targets");
  await targets.getByRole("button", { name: "Add item" }).click();
  await targets.getByRole("button", { name: "Add item" }).click();
  await expect(page.locator("#root_targets_0_host")).toHaveValue("localhost");
  await expect(page.locator("#root_targets_0_port")).toHaveValue("22");
  await expect(page.locator("#root_targets_0_id")).toHaveValue("srv-1");
  await expect(page.locator("#root_targets_0_tls_verify")).toBeChecked();
  await page.locator("#root_targets_1_host").fill("db");

  const env = field(page, "env");
  await expect(env.getByTestId("field-state")).toHaveText("not sent");
  await page.locator("fieldset#root_env").getByRole("button", { name: "Add property" }).click();
  await expect(env.getByTestId("field-state")).toHaveCount(0);
  await page.getByLabel("Key of newKey").fill("PATH");
  await page.getByLabel("Key of newKey").blur();
  const value = page.locator("#root_env_PATH");
  await value.fill("/bin");
  const keyBox = (await page.getByLabel("Key of PATH").boundingBox())!;
  const valueBox = (await value.boundingBox())!;
  expect(Math.abs(keyBox.y - valueBox.y)).toBeLessThan(2);
  expect(valueBox.x).toBeGreaterThan(keyBox.x + keyBox.width);

  const limits = field(page, "limits");
  await page.locator("fieldset#root_limits").getByRole("button", { name: "Add property" }).click();
  const entry = page.locator("#root_limits_newKey");
  await entry.fill("-1");
  await entry.press("Tab");
  await expect(field(page, "limits.newKey")).toContainText("must be at least 0");
  await page.getByRole("button", { name: "Clear Limits" }).click();
  await expect(limits.getByTestId("field-state")).toHaveText("not sent");
  await expect(page.locator("[data-invalid]")).toHaveCount(0);

  expect(await runAndReadReceivedArgs(page)).toEqual({
    targets: [
      { host: "localhost", port: 22, tls: { verify: true } },
      { host: "db", port: 22, tls: { verify: true } },
    ],
    env: { PATH: "/bin" },
  });
});

test("a read-only field is sent when the person types it into the raw JSON", async ({ page }) => {
  await page.goto("/skills/form_read_only");
  await page.getByRole("button", { name: "Raw JSON" }).click();
  const raw = page.getByLabel("Args (JSON object)");
  await expect(raw).toHaveValue("{}");
  await raw.fill('{"region": "us-east", "meta": {"etag": "e2"}}');
  expect(await runAndReadReceivedArgs(page)).toEqual({ region: "us-east", meta: { etag: "e2" } });
});

test("every union picker is named after its field and what it picks; a root oneOf shows its title", async ({ page }) => {
  await page.goto("/skills/form_unions");
  const lookup = page.getByRole("combobox", { name: "Lookup: option", exact: true });
  await expect(lookup).toHaveValue("0");
  await expect(page.locator("#skill-args-form label[for='root__oneof_select']")).toHaveText("Lookup");
  await lookup.selectOption({ label: "By name" });
  await page.getByRole("combobox", { name: "Tags: type", exact: true }).selectOption({ label: "array" });
  await expect(page.locator("fieldset#root_tags")).toBeVisible();

  await page.goto("/skills/form_nullable_unions");
  const pickers = page.locator("#skill-args-form").getByRole("combobox");
  await expect(pickers).toHaveCount(4);
  for (const [index, name] of ["Id: type", "Tags: type", "Label: type", "Words: type"].entries()) await expect(pickers.nth(index)).toHaveAccessibleName(name);

  await page.goto("/skills/form_branches");
  await page.locator("fieldset#root_steps").getByRole("button", { name: /^Add item/ }).click();
  await expect(page.getByRole("combobox", { name: "Source: option", exact: true })).toHaveValue("0");
  await expect(page.getByRole("combobox", { name: "Steps 1: option", exact: true })).toHaveValue("0");
  await expect(page.getByRole("combobox", { name: "Limit: option", exact: true })).toHaveValue("0");

  await page.goto("/skills/form_root_allof");
  await expect(page.getByRole("combobox", { name: "Window: option", exact: true })).toHaveValue("0");
});

test("each Add property and Add item button names the object or array it adds to", async ({ page }) => {
  await page.goto("/skills/form_read_only");
  for (const name of ["Add property to Env", "Add property to Limits", "Add item to Targets"]) {
    await expect(page.getByRole("button", { name, exact: true })).toHaveCount(1);
  }
  await expect(page.getByRole("button", { name: "Add property", exact: true })).toHaveCount(0);
  await page.getByRole("button", { name: "Add property to Limits", exact: true }).click();
  await expect(page.locator("#root_limits_newKey")).toHaveValue("0");
  await expect(page.locator("#root_env_newKey")).toHaveCount(0);

  // Two arrays drawn as the "array" option of a type union: each button names its own field.
  await page.goto("/skills/form_nullable_unions");
  await page.getByRole("combobox", { name: "Tags: type", exact: true }).selectOption({ label: "array" });
  await page.getByRole("combobox", { name: "Words: type", exact: true }).selectOption({ label: "array" });
  await expect(page.getByRole("button", { name: "Add item to Tags", exact: true })).toHaveCount(1);
  await page.getByRole("button", { name: "Add item to Words", exact: true }).click();
  await expect(page.locator("#root_words_0")).toBeFocused();
  await expect(page.locator("#root_tags_0")).toHaveCount(0);
});

test("each item of an array of objects is named by its position — its group, fields and buttons — and the names follow the items as they are added, moved and removed", async ({ page }) => {
  await page.goto("/skills/form_read_only");
  const add = page.getByRole("button", { name: "Add item to Targets", exact: true });
  for (let i = 0; i < 3; i++) await add.click();
  const host = (n: number) => page.getByRole("textbox", { name: `Target ${n} Host (required)`, exact: true });
  for (const n of [1, 2, 3]) {
    await expect(page.getByRole("group", { name: `Target ${n}`, exact: true })).toHaveCount(1);
    await expect(host(n)).toHaveValue("localhost");
    await expect(page.getByRole("textbox", { name: `Target ${n} Port`, exact: true })).toHaveValue("22");
    await expect(page.getByRole("textbox", { name: `Target ${n} Id`, exact: true })).toHaveValue("srv-1");
    await expect(page.getByRole("group", { name: `Target ${n} TLS`, exact: true })).toHaveCount(1);
    await expect(page.getByRole("checkbox", { name: `Target ${n} Verify`, exact: true })).toBeChecked();
    await expect(page.getByRole("group", { name: `Actions for Target ${n}`, exact: true })).toHaveCount(1);
    await expect(page.getByRole("button", { name: `Remove Target ${n}`, exact: true })).toHaveCount(1);
  }
  // No name is shared by the items any more.
  await expect(page.getByRole("textbox", { name: "Host (required)", exact: true })).toHaveCount(0);
  await expect(page.getByRole("group", { name: "Target", exact: true })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Move Target 1 up", exact: true })).toBeDisabled();
  await expect(page.getByRole("button", { name: "Move Target 3 down", exact: true })).toBeDisabled();

  await host(1).fill("a");
  await host(2).fill("b");
  await host(3).fill("c");
  await page.getByRole("button", { name: "Move Target 3 up", exact: true }).click();
  await expect(host(2)).toHaveValue("c");
  await expect(host(3)).toHaveValue("b");
  await page.getByRole("button", { name: "Remove Target 1", exact: true }).click();
  await expect(host(1)).toHaveValue("c");
  await expect(host(2)).toHaveValue("b");
  await expect(page.getByRole("group", { name: "Target 3", exact: true })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Remove Target 3", exact: true })).toHaveCount(0);
  await add.click();
  await expect(host(3)).toBeFocused();
  await expect(host(3)).toHaveValue("localhost");
  await page.getByRole("checkbox", { name: "Target 2 Verify", exact: true }).uncheck();

  expect(await runAndCaptureArgs(page)).toEqual({
    targets: [
      { host: "c", port: 22, tls: { verify: true } },
      { host: "b", port: 22, tls: { verify: false } },
      { host: "localhost", port: 22, tls: { verify: true } },
    ],
  });
});

test("each item of an array of unions names its picker and fields by its position, renumbered when an item is removed", async ({ page }) => {
  await page.goto("/skills/form_branches");
  const add = page.getByRole("button", { name: "Add item to Steps", exact: true });
  await add.click();
  await add.click();
  const picker = (n: number) => page.getByRole("combobox", { name: `Steps ${n}: option`, exact: true });
  await expect(picker(1)).toHaveValue("0");
  await expect(picker(2)).toHaveValue("0");
  await expect(page.getByRole("textbox", { name: "Steps 1 Times", exact: true })).toHaveValue("5");
  await expect(page.getByRole("textbox", { name: "Steps 2 Times", exact: true })).toHaveValue("5");
  await picker(2).selectOption({ label: "Stops the run." });
  await page.getByRole("textbox", { name: "Steps 2 Reason (required)", exact: true }).fill("done");

  await page.getByRole("button", { name: "Remove Steps 1", exact: true }).click();
  await expect(picker(1)).toHaveValue("2");
  await expect(page.getByRole("textbox", { name: "Steps 1 Reason (required)", exact: true })).toHaveValue("done");
  await expect(picker(2)).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Remove Steps 2", exact: true })).toHaveCount(0);
  await expect(page.getByRole("group", { name: "Actions for Steps 1", exact: true })).toHaveCount(1);
});

test("inside an item, nested arrays, maps and multi-selects start their names with the item's, on a phone's width too", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/skills/form_nested_items");
  const addHost = page.getByRole("button", { name: "Add item to Hosts", exact: true });
  await addHost.click();
  await addHost.click();
  await page.getByRole("textbox", { name: "Host 1 Name (required)", exact: true }).fill("a");
  await page.getByRole("textbox", { name: "Host 2 Name (required)", exact: true }).fill("b");

  // Each host has its own Ports, Add item and port names.
  const addPort = page.getByRole("button", { name: "Add item to Host 2 Ports", exact: true });
  await addPort.click();
  await addPort.click();
  const port = (host: number, n: number) => page.getByRole("textbox", { name: `Host ${host} Ports ${n}`, exact: true });
  await port(2, 1).fill("22");
  await port(2, 2).fill("443");
  await expect(port(1, 1)).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Add item to Host 1 Ports", exact: true })).toHaveCount(1);
  await page.getByRole("button", { name: "Remove Host 2 Ports 1", exact: true }).click();
  await expect(port(2, 1)).toHaveValue("443");
  await expect(port(2, 2)).toHaveCount(0);

  // A map in an item: its Add property, key box, value and Remove name the item.
  await page.getByRole("button", { name: "Add property to Host 1 Labels", exact: true }).click();
  await expect(page.getByRole("button", { name: "Add property to Host 2 Labels", exact: true })).toHaveCount(1);
  const key = page.getByRole("textbox", { name: "Key of Host 1 newKey", exact: true });
  await key.fill("zone");
  await key.blur();
  const zone = page.getByRole("textbox", { name: "Host 1 zone", exact: true });
  await zone.fill("eu");
  await expect(page.getByRole("button", { name: "Remove Host 1 zone", exact: true })).toHaveCount(1);
  // The item's map is narrow here: its value takes the line under the key, as wide as the map.
  const labels = (await page.getByRole("group", { name: "Host 1 Labels", exact: true }).boundingBox())!;
  const zoneBox = (await zone.boundingBox())!;
  expect(zoneBox.width).toBeGreaterThan(labels.width * 0.6);
  const removeZone = (await page.getByRole("button", { name: "Remove Host 1 zone", exact: true }).boundingBox())!;
  expect(removeZone.x + removeZone.width).toBeLessThanOrEqual(labels.x + labels.width);

  // A multi-select in an item: its group and its boxes.
  await page.getByRole("group", { name: "Host 2 Checks", exact: true }).getByRole("checkbox", { name: "Host 2 ssh", exact: true }).check();
  await expect(page.getByRole("checkbox", { name: "Host 1 ssh", exact: true })).not.toBeChecked();

  // An item that is an open object: its own Add property.
  await page.getByRole("button", { name: "Add item to Overrides", exact: true }).click();
  await page.getByRole("button", { name: "Add property to Overrides 1", exact: true }).click();
  await page.getByRole("textbox", { name: "Overrides 1 newKey", exact: true }).fill("x");

  // Nothing reaches past the screen; each item's toolbar is on it.
  const scroll = await page.evaluate(() => ({ scrollWidth: document.scrollingElement!.scrollWidth, clientWidth: document.scrollingElement!.clientWidth }));
  expect(scroll.scrollWidth).toBeLessThanOrEqual(scroll.clientWidth);
  for (const name of ["Remove Host 1", "Remove Host 2", "Remove Host 2 Ports 1", "Remove Host 1 zone", "Remove Overrides 1", "Remove Overrides 1 newKey"]) {
    const box = (await page.getByRole("button", { name, exact: true }).boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
  }

  // Host 2 becomes Host 1, with its nested names.
  await page.getByRole("button", { name: "Remove Host 1", exact: true }).click();
  await expect(page.getByRole("textbox", { name: "Host 1 Name (required)", exact: true })).toHaveValue("b");
  await expect(port(1, 1)).toHaveValue("443");
  await expect(page.getByRole("checkbox", { name: "Host 1 ssh", exact: true })).toBeChecked();
  await expect(page.getByRole("group", { name: "Host 2", exact: true })).toHaveCount(0);

  expect(await runAndCaptureArgs(page)).toEqual({ hosts: [{ name: "b", ports: [443], checks: ["ssh"] }], overrides: [{ newKey: "x" }] });
});

test("a field whose control draws its label (array and object legends, checkboxes) shows its type line after the label, on its row", async ({ page }) => {
  await page.goto("/skills/form_scalars");
  const items = field(page, "items");
  // Matched in document order: the label first.
  await expect(items.locator("legend, [data-testid='field-hint'], [data-testid='field-state']")).toHaveText(["Items", "array of string", "not sent"]);
  const legend = (await items.locator("legend").boundingBox())!;
  const hint = (await items.getByTestId("field-hint").boundingBox())!;
  expect(hint.x).toBeGreaterThan(legend.x + legend.width);
  expect(Math.abs(hint.y + hint.height / 2 - (legend.y + legend.height / 2))).toBeLessThan(4);

  await page.goto("/skills/form_read_only");
  await expect(field(page, "env").locator("legend, [data-testid='field-hint'], [data-testid='field-state']")).toHaveText(["Env", "not sent"]);
  await page.locator("fieldset#root_targets").getByRole("button", { name: /^Add item/ }).click();
  const verify = field(page, "targets.0.tls.verify");
  // The label's text starts with its item's name, for screen readers only.
  await expect(verify.locator("label, [data-testid='field-hint']")).toHaveText(["Target 1 Verify", "boolean"]);
  const label = (await verify.locator("label").boundingBox())!;
  const verifyHint = (await verify.getByTestId("field-hint").boundingBox())!;
  expect(verifyHint.x).toBeGreaterThan(label.x + label.width);
});

test("read-only values come back after Form → Raw JSON → Form, and the form still does not send them", async ({ page }) => {
  await page.goto("/skills/form_read_only");
  await page.locator("fieldset#root_targets").getByRole("button", { name: /^Add item/ }).click();
  await page.getByRole("button", { name: "Raw JSON" }).click();
  const raw = page.getByLabel("Args (JSON object)");
  await expect(raw).toHaveValue('{\n  "targets": [\n    {\n      "host": "localhost",\n      "port": 22,\n      "tls": {\n        "verify": true\n      }\n    }\n  ]\n}');
  await page.getByRole("button", { name: "Form", exact: true }).click();
  await expect(page.getByLabel("Region", { exact: true })).toHaveValue("eu-west");
  await expect(page.locator("#root_meta_etag")).toHaveValue("e1");
  await expect(page.locator("#root_targets_0_id")).toHaveValue("srv-1");

  // An edit in the raw JSON keeps the read-only values the form showed.
  await page.getByRole("button", { name: "Raw JSON" }).click();
  await raw.fill('{"targets": [{"host": "db", "port": 22}], "meta": {"owner": "ops"}}');
  await page.getByRole("button", { name: "Form", exact: true }).click();
  await expect(page.getByLabel("Region", { exact: true })).toHaveValue("eu-west");
  await expect(page.locator("#root_meta_etag")).toHaveValue("e1");
  await expect(page.locator("#root_meta_owner")).toHaveValue("ops");
  await expect(page.locator("#root_targets_0_host")).toHaveValue("db");
  await expect(page.locator("#root_targets_0_id")).toHaveValue("srv-1");
  await expect(page.locator("#root_targets_0_tls_verify")).not.toBeChecked();

  expect(await runAndReadReceivedArgs(page)).toEqual({ targets: [{ host: "db", port: 22 }], meta: { owner: "ops" } });
});

test("Reset in the raw JSON leaves read-only defaults out of the text, and the form shows them again", async ({ page }) => {
  await page.goto("/skills/form_read_only");
  await page.getByRole("button", { name: "Raw JSON" }).click();
  const raw = page.getByLabel("Args (JSON object)");
  await raw.fill('{"meta": {"owner": "ops"}}');
  await page.getByRole("button", { name: "Reset", exact: true }).click();
  await expect(raw).toHaveValue("{}");
  await page.getByRole("button", { name: "Form", exact: true }).click();
  await expect(page.getByLabel("Region", { exact: true })).toHaveValue("eu-west");
  await expect(page.locator("#root_meta_etag")).toHaveValue("e1");
  await expect(page.locator("#root_meta_owner")).toHaveValue("");
});

test("without a form, the raw JSON editor says the args are edited as JSON, not that they update a form", async ({ page }) => {
  await page.goto("/skills/form_broken");
  const status = page.locator("#skill-args-form-raw-status");
  await expect(status).toHaveText("The form could not be built from this skill's schema, so the args are edited as JSON here.");
  await page.getByLabel("Args (JSON object)").fill("[]");
  await expect(status).toHaveText("Args must be a JSON object ({ … }), not an array. Nothing is sent until this is fixed.");
  await page.getByLabel("Args (JSON object)").fill("{}");
  await page.getByRole("button", { name: "Raw JSON" }).click();
  await expect(status).toHaveText("The form could not be built from this skill's schema, so the args are edited as JSON here.");

  await page.goto("/skills/form_scalars");
  await page.getByRole("button", { name: "Raw JSON" }).click();
  await expect(status).toHaveText("Edits here update the form, and the form's edits show here.");
});

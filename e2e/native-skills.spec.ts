import { expect, test } from "@playwright/test";

/**
 * Issue 5, point 8: the page of a native (SKILL.md) skill — instructions rendered as markdown, the
 * resources browser, a script run from the form with its stdout in the result, the declared tools and
 * the other frontmatter — and the ranked search box of the skills list (skill_search with confidence).
 * Uses the bundled skills/analysis/log-analyzer (its SKILL.md documents `analyze.py` with args
 * `["assets/sample.log"]`: 10 error lines in 6 patterns, the top one a connection timeout, 3 times).
 */

const SKILL = "log-analyzer";

test("a native skill page renders its instructions, browses its resources and shows its frontmatter", async ({ page }) => {
  await page.goto(`/skills/${SKILL}`);
  await expect(page.getByRole("heading", { level: 1, name: SKILL })).toBeVisible();
  // The class comes from the frontmatter (`class: safe`), so no "declared: none" note.
  await expect(page.locator("main [data-class]").first()).toHaveAttribute("data-class", "safe");
  await expect(page.getByTestId("declared-class-none")).toHaveCount(0);
  // What reading it costs and what running its scripts needs, separately (issue 12 point 4).
  await expect(page.getByText("read: safe", { exact: true }).first()).toBeVisible();
  await expect(page.getByText("scripts: safe", { exact: true }).first()).toBeVisible();

  // Level 2: the SKILL.md body as markdown — headings, lists, inline code — never as raw text.
  const instructions = page.getByTestId("skill-instructions");
  await expect(instructions.getByRole("heading", { level: 1, name: "Log analyzer" })).toBeVisible();
  await expect(instructions.getByRole("heading", { level: 2, name: "Steps" })).toBeVisible();
  await expect(instructions.locator("code", { hasText: /^assets\/sample\.log$/ }).first()).toBeVisible();
  await expect(instructions).not.toContainText("## Steps");
  await expect(instructions.locator("strong", { hasText: "Find the log file." })).toBeVisible();

  // The declared tools[] and the other frontmatter keys.
  const tool = page.getByTestId("declared-tool");
  await expect(tool).toHaveCount(1);
  await expect(tool).toContainText("analyze");
  await expect(tool).toContainText("scripts/analyze.py");
  const frontmatter = page.getByTestId("skill-frontmatter");
  await expect(frontmatter).toContainText("license");
  await expect(frontmatter).toContainText("MIT");
  await expect(frontmatter).toContainText('"bins": [');
  await expect(frontmatter).toContainText('"python3"');

  // Level 3: the four folders and the folder's other files as groups, a file's text with line numbers, and the raw Download link.
  const files = page.getByRole("navigation", { name: "Resource files" });
  await expect(files.locator("[data-folder]")).toHaveCount(5);
  await expect(files.locator('[data-folder="other"]')).toContainText("other files");
  await expect(files.locator('[data-folder="templates"]')).toContainText("empty");
  await files.getByRole("button", { name: "sample.log" }).click();
  const viewer = page.getByTestId("resource-viewer");
  await expect(viewer).toHaveAttribute("data-path", "assets/sample.log");
  const text = viewer.getByTestId("resource-text");
  await expect(text).toContainText("payments-api 1.4.2 starting on port 8080");
  await expect(text.locator("pre").first()).toContainText(/^1\n2\n3\n/);
  await expect(viewer.getByRole("link", { name: "Download" })).toHaveAttribute("href", `/api/v1/skills/${SKILL}/resources/assets/sample.log`);

  // Another file replaces it; a script opens from the Scripts list ("View" by its name).
  await files.getByRole("button", { name: "patterns.md" }).click();
  await expect(viewer).toHaveAttribute("data-path", "references/patterns.md");
  await expect(viewer.getByTestId("resource-text")).not.toBeEmpty();
  await files.getByRole("button", { name: "sample.log" }).click();
  await expect(viewer).toHaveAttribute("data-path", "assets/sample.log");
  // Inline code of the instructions that names a resource opens it too.
  await instructions.getByRole("button", { name: "references/patterns.md" }).first().click();
  await expect(viewer).toHaveAttribute("data-path", "references/patterns.md");
  await page.getByTestId("skill-script").getByRole("button", { name: "analyze.py", exact: true }).click();
  await expect(viewer).toHaveAttribute("data-path", "scripts/analyze.py");
  await expect(viewer.getByTestId("resource-text")).toContainText("python3");
});

test("a script runs from the form and its stdout is the call's result", async ({ page }) => {
  await page.goto(`/skills/${SKILL}`);
  await page.getByRole("button", { name: "Run analyze.py" }).click();
  await expect(page.getByTestId("args-source")).toHaveText("Script analyze.py selected");
  // The skill has one script: the script field allows one value, shown fixed (issue 14 point 4: an enum of one is a const).
  await expect(page.getByRole("textbox", { name: /^Script/ })).toHaveValue("analyze.py");
  const args = page.locator("fieldset#root_args");
  await args.getByRole("button", { name: "Add item" }).click();
  await page.locator("#root_args_0").fill("assets/sample.log");

  const request = page.waitForRequest((candidate) => candidate.method() === "POST" && new URL(candidate.url()).pathname === `/api/v1/skills/${SKILL}/calls`);
  await page.getByRole("button", { name: "Run", exact: true }).click();
  expect(((await request).postDataJSON() as { args: unknown }).args).toEqual({ script: "analyze.py", args: ["assets/sample.log"] });

  await expect(page).toHaveURL(/\/calls\/[^/?]+$/);
  await expect(page.locator("[data-status]").first()).toHaveAttribute("data-status", "succeeded");
  // The stdout is shown as the text it is, not as an escaped JSON string.
  const result = page.getByTestId("result-stdout");
  await expect(result).toContainText("Connection to <ip> timed out after <n> ms");
  await expect(result).not.toContainText('"stdout":');
  await expect(result).not.toContainText("\\n");

  // "Run again with these args" brings the same script and argv back into the form.
  await page.getByRole("link", { name: "Run again with these args" }).click();
  await expect(page).toHaveURL(new RegExp(`/skills/${SKILL}\\?from=`));
  await expect(page.getByTestId("args-source")).toHaveText(/^Args from call /);
  await expect(page.locator("#root_args_0")).toHaveValue("assets/sample.log");
});

test("ranked search lists the best skill first with its confidence, by keyboard too", async ({ page }) => {
  await page.goto("/skills");
  // Native skills are marked in the list.
  const row = page.getByTestId("skill-row").filter({ has: page.getByRole("link", { name: SKILL, exact: true }) });
  await expect(row.getByText("native", { exact: true }).first()).toBeVisible();

  const box = page.getByLabel("Search skills by relevance");
  await box.fill("analyze logs");
  const matches = page.getByTestId("search-match");
  await expect(matches.first()).toHaveAttribute("data-skill", SKILL);
  await expect(matches.first().getByTestId("search-confidence")).toHaveText(/^confidence [01]\.\d\d$/);
  const confidences = await matches.getByTestId("search-confidence").allTextContents();
  const values = confidences.map((value) => Number(value.replace("confidence ", "")));
  expect(values[0]).toBeGreaterThan(0);
  expect([...values].sort((a, b) => b - a)).toEqual(values);

  // Escape clears; no match says so; ArrowDown then Enter opens the first match.
  await box.press("Escape");
  await expect(box).toHaveValue("");
  await expect(matches).toHaveCount(0);
  await box.fill("zzqxv wqpzz");
  await expect(page.getByTestId("search-empty")).toBeVisible();
  await box.fill("analyze logs");
  await expect(matches.first()).toHaveAttribute("data-skill", SKILL);
  await box.press("ArrowDown");
  await expect(matches.first().getByRole("link")).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(`/skills/${SKILL}`);
  await expect(page.getByRole("heading", { level: 1, name: SKILL })).toBeVisible();
});

test("an unavailable native skill says why and cannot run", async ({ page, request }) => {
  const response = await request.get("/api/v1/skills");
  expect(response.status()).toBe(200);
  const { skills } = (await response.json()) as { skills: { name: string; kind: string; available: boolean; unavailableReason: string | null }[] };
  // e2e/fixtures/native/e2e/needs-missing-tool requires a program no host has.
  const unavailable = skills.find((skill) => skill.name === "needs-missing-tool");
  expect(unavailable).toMatchObject({ kind: "native", available: false, unavailableReason: "requires bins not found on PATH: skill-console-e2e-missing-tool" });
  if (!unavailable) return;

  await page.goto(`/skills/${encodeURIComponent(unavailable.name)}`);
  await expect(page.getByTestId("unavailable-reason")).toContainText(unavailable.unavailableReason ?? "");
  await expect(page.getByRole("button", { name: "Run", exact: true })).toBeDisabled();
});

test("a native skill with no scripts reads as safe, shows no script timeout, and serves the files beside its SKILL.md", async ({ page }) => {
  // e2e/fixtures/native/e2e/read-only-guide: FORMS.md and reference/steps.md beside SKILL.md, no scripts/.
  await page.goto("/skills/read-only-guide");
  await expect(page.getByRole("heading", { level: 1, name: "read-only-guide" })).toBeVisible();
  await expect(page.getByText("read: safe", { exact: true }).first()).toBeVisible();
  await expect(page.getByText("no scripts to run").first()).toBeVisible();
  await expect(page.getByText(/^scripts: /)).toHaveCount(0);
  await expect(page.getByText("Script timeout")).toHaveCount(0);

  const files = page.getByRole("navigation", { name: "Resource files" });
  const other = files.locator('[data-folder="other"]');
  await expect(other).toContainText("FORMS.md");
  await expect(other).toContainText("reference/steps.md");
  await other.getByRole("button", { name: "FORMS.md" }).click();
  const viewer = page.getByTestId("resource-viewer");
  await expect(viewer).toHaveAttribute("data-path", "FORMS.md");
  await expect(viewer.getByTestId("resource-text")).toContainText("Every request names a host and a reason.");

  // In the list: safe, and no timeout.
  await page.goto("/skills");
  const row = page.getByTestId("skill-row").filter({ hasText: "read-only-guide" });
  await expect(row.locator("[data-class]")).toHaveAttribute("data-class", "safe");
  await expect(row.getByTitle("No scripts: nothing runs")).toHaveText("–");
});


import { readFile } from "node:fs/promises";
import { expect, test, type Page } from "@playwright/test";

/**
 * Scale: the skills list with 5,000 skills (the API answer is replaced in the browser, nothing is
 * written to disk) and the call page with a 200,000-line stderr timeline (the scale_flood fixture).
 * Both must stay windowed: only the rows in view are in the DOM.
 */

const SKILL_COUNT = 5000;
const SKILLS_PER_CATEGORY = 100;

function generatedSkills() {
  return Array.from({ length: SKILL_COUNT }, (_, i) => {
    const number = String(i).padStart(4, "0");
    const category = `cat_${String(Math.floor(i / SKILLS_PER_CATEGORY)).padStart(2, "0")}`;
    return {
      name: `skill_${number}`,
      kind: "subprocess",
      description: `Generated skill number ${number}`,
      category,
      class: "safe",
      schema: { type: "object", properties: {} },
      timeoutSeconds: 30,
      envAllow: ["PATH"],
      source: { root: "/generated", path: `/generated/${category}/skill_${number}/skill.json` },
      available: true,
      unavailableReason: null,
      warnings: [],
    };
  });
}

test("the skills list stays windowed and filters exactly with 5,000 skills", async ({ page }) => {
  const skills = generatedSkills();
  await page.route(/\/api\/v1\/skills$/, (route) => route.fulfill({ json: { skills } }));

  await page.goto("/skills");
  await expect(page.getByText(`${SKILL_COUNT} skills in 50 categories`)).toBeVisible();
  await expect(page.getByRole("heading", { level: 2, name: "cat_00", exact: true })).toBeVisible();
  await expect(page.getByRole("link", { name: "skill_0000", exact: true })).toBeVisible();
  const rows = page.getByTestId("skill-row");
  expect(await rows.count()).toBeLessThan(300);

  // Every word must match: skill_4207, 4217 … 4297 and 4270 … 4279, all in category cat_42.
  const expected = skills.filter((skill) => skill.name.startsWith("skill_42") && skill.name.slice(6).includes("7"));
  expect(expected).toHaveLength(19);
  await page.getByLabel("Filter skills").fill("skill_42 7");
  await expect(page.getByRole("status")).toContainText(`19 of ${SKILL_COUNT} skills match`);
  await expect(page.getByTestId("skill-category")).toHaveCount(1);
  await expect(page.getByTestId("skill-category-count")).toHaveText("19");
  await expect(rows).toHaveCount(19);
  await expect(page.getByRole("link", { name: "skill_4297", exact: true })).toBeVisible();

  await page.getByLabel("Filter skills").fill("");
  await expect(page.getByRole("status")).toBeHidden();
  await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
  await expect(page.getByRole("link", { name: "skill_4999", exact: true })).toBeInViewport();
  await expect(rows.last()).toHaveAttribute("data-category", "cat_49");
  await expect(page.getByRole("heading", { level: 2, name: "cat_00", exact: true })).toHaveCount(0);
  expect(await rows.count()).toBeLessThan(300);
});

async function lineCount(page: Page): Promise<number> {
  return Number.parseInt((await page.getByTestId("timeline-count").textContent()) ?? "0", 10);
}

test("the call page stays fluid with a 200,000-line timeline", async ({ page, request }) => {
  test.setTimeout(180_000);
  const started = await request.post("/api/v1/skills/scale_flood/calls", { data: { args: {}, wait: false } });
  expect(started.status(), await started.text()).toBe(202);
  const { call } = (await started.json()) as { call: { id: string } };

  // The page must not load the timeline twice: the stream resumes after the last line of the call query.
  const storedSeqs: number[] = [];
  const resumedAfter: number[] = [];
  // A reconnect (the server cuts a stream whose reader fell 8 MiB behind) resumes after the last line
  // the browser got, which it sends as Last-Event-ID: never a download from the start again.
  const reconnectedAfter: number[] = [];
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (url.pathname !== `/api/v1/calls/${call.id}/events`) return;
    if (resumedAfter.length === 0) resumedAfter.push(Number(url.searchParams.get("lastEventId") ?? 0));
    // allHeaders: the browser's network stack adds Last-Event-ID, which headers() leaves out.
    else void request.allHeaders().then((headers) => reconnectedAfter.push(Number(headers["last-event-id"] ?? 0)));
  });
  page.on("response", async (response) => {
    if (new URL(response.url()).pathname === `/api/v1/calls/${call.id}` && response.request().method() === "GET") {
      const body = (await response.json()) as { call: { events: Array<{ seq: number }> } };
      storedSeqs.push(body.call.events.at(-1)?.seq ?? 0);
    }
  });

  const opened = Date.now();
  await page.goto(`/calls/${call.id}`);
  const timeline = page.getByRole("log", { name: "stderr timeline" });
  await expect.poll(() => lineCount(page), { timeout: 120_000, intervals: [250] }).toBeGreaterThanOrEqual(200_000);
  const renderedMs = Date.now() - opened;

  // Following the tail: the slow lines after the flood show up at the bottom of the log without scrolling it
  // (the page itself is scrolled to the log, which the result card pushed down once the call ended).
  await expect(page.getByTestId("call-result")).toBeVisible({ timeout: 30_000 });
  await timeline.scrollIntoViewIfNeeded();
  await expect(timeline.getByText("tail 5/5")).toBeInViewport({ timeout: 30_000 });
  await expect(page.getByTestId("result-json")).toContainText('"lines": 200000');
  const total = await lineCount(page);
  const ended = ((await (await request.get(`/api/v1/calls/${call.id}?events=none`)).json()) as { call: { createdAt: string; endedAt: string; durationMs: number } }).call;
  const runMs = Date.parse(ended.endedAt) - Date.parse(ended.createdAt);
  expect(total).toBeGreaterThanOrEqual(200_005);
  expect(storedSeqs).toHaveLength(1);
  expect(resumedAfter).toEqual(storedSeqs);
  for (const after of reconnectedAfter) expect(after).toBeGreaterThan(storedSeqs[0]!);

  const rowNodes = await page.getByTestId("timeline-row").count();
  const domNodes = await page.evaluate(() => document.querySelectorAll("*").length);
  expect(rowNodes).toBeLessThan(500);
  test.info().annotations.push({ type: "scale", description: `${total} lines rendered ${renderedMs} ms after opening (call ran ${runMs} ms from creation, process ${ended.durationMs} ms); ${rowNodes} row elements, ${domNodes} DOM nodes` });
  console.log(test.info().annotations.at(-1)?.description);

  // Scrolling up pauses following; "Jump to latest" resumes it.
  await timeline.evaluate((el) => el.scrollTo({ top: 0 }));
  await expect(timeline.getByText("line 1", { exact: true })).toBeInViewport();
  const jump = page.getByRole("button", { name: "Jump to latest" });
  await expect(jump).toBeVisible();
  await jump.click();
  await expect(timeline.getByText("tail 5/5")).toBeInViewport();
  await expect(jump).toBeHidden();

  // Search: Enter runs it at once and focuses the only match.
  const search = page.getByLabel("Search the timeline");
  await search.fill("line 199999");
  await search.press("Enter");
  await expect(page.getByTestId("timeline-search-count")).toHaveText("1 of 1");
  const focused = timeline.locator('[aria-current="true"]');
  await expect(focused).toContainText("line 199999");
  await expect(focused).toBeInViewport();
  await search.fill("tail");
  await search.press("Enter");
  await expect(page.getByTestId("timeline-search-count")).toHaveText("1 of 5");
  await search.press("Shift+Enter");
  await expect(page.getByTestId("timeline-search-count")).toHaveText("5 of 5");
  await expect(focused).toContainText("tail 5/5");

  // Download: the loaded timeline as `seq<TAB>time<TAB>stream<TAB>line` text.
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download as text" }).click()]);
  const text = await readFile((await download.path()) ?? "", "utf8");
  const lines = text.trimEnd().split("\n");
  expect(lines.length).toBe(total);
  expect(lines).toContainEqual(expect.stringMatching(/^\d+\t\d{4}-\d\d-\d\dT[\d:.]+Z\tstderr\tline 200000$/));

  // The same text straight from the database, and the call without its events.
  const exported = await request.get(`/api/v1/calls/${call.id}/timeline.txt`);
  expect(exported.headers()["content-type"]).toContain("text/plain");
  expect((await exported.text()).trimEnd().split("\n").length).toBe(total);
  const bare = await request.get(`/api/v1/calls/${call.id}?events=none`);
  const bareCall = ((await bare.json()) as { call: { events: unknown[]; eventCount: number } }).call;
  expect(bareCall.events).toHaveLength(0);
  expect(bareCall.eventCount).toBe(total);
  const page2 = await request.get(`/api/v1/calls/${call.id}?afterSeq=100&limit=3`);
  expect(((await page2.json()) as { call: { events: Array<{ seq: number }> } }).call.events.map((event) => event.seq)).toEqual([101, 102, 103]);
});

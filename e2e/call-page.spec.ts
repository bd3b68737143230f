import { expect, test, type APIRequestContext } from "@playwright/test";

/** The call page's outcome views: why a call failed, a queued call, and the summary's empty values and times. */

interface CallBody {
  call: { id: string; status: string };
}

async function startCall(request: APIRequestContext, skill: string, args: Record<string, unknown>, wait: boolean): Promise<CallBody["call"]> {
  const response = await request.post(`/api/v1/skills/${skill}/calls`, { data: { args, wait } });
  expect(response.status(), await response.text()).toBe(wait ? 200 : 202);
  return ((await response.json()) as CallBody).call;
}

test("a failed call shows its error and its last stderr lines", async ({ page, request }) => {
  const call = await startCall(request, "fail_loudly", {}, true);
  expect(call.status).toBe("failed");

  await page.goto(`/calls/${call.id}`);
  const failure = page.getByTestId("call-failure");
  await expect(failure).toContainText("The call failed");
  await expect(failure).toContainText("exited with code 3");
  const excerpt = failure.getByTestId("failure-excerpt");
  await expect(excerpt.locator("li")).toHaveCount(3);
  await expect(excerpt).toContainText("line 3 of 5");
  await expect(excerpt).toContainText("line 5 of 5 (giving up: cannot build the report)");
  await expect(excerpt).not.toContainText("line 2 of 5");
  await expect(page.getByTestId("call-exit-code")).toHaveText("3");

  // Summary: a real start time with its zone, and the persona: a call naming none runs under "default" (issue 4).
  await expect(page.getByTestId("call-started").locator("time")).toHaveAttribute("title", /UTC.* · \d{4}-\d{2}-\d{2}T[\d:.]+Z$/);
  await expect(page.getByTestId("call-started")).toContainText(/UTC/);
  await expect(page.getByTestId("call-persona")).toHaveText("default");
});

test("a bundled skill's failure shows the line it wrote to stderr", async ({ page, request }) => {
  const call = await startCall(request, "log_scan", { path: "/var/log/does-not-exist.log" }, true);
  expect(call.status).toBe("failed");

  await page.goto(`/calls/${call.id}`);
  await expect(page.getByTestId("failure-excerpt")).toContainText("/var/log/does-not-exist.log does not exist");
});

test("a queued call says it has not started, and cancelling it talks about the queue only", async ({ page, request }) => {
  // The e2e console runs 8 calls at once (SKILL_MAX_CONCURRENT_CALLS default): the ninth waits.
  const blockers: string[] = [];
  try {
    for (let i = 0; i < 8; i++) blockers.push((await startCall(request, "slow_echo", { message: `blocker ${i}`, lines: 50 }, false)).id);
    const call = await startCall(request, "slow_echo", { message: "waiting", lines: 1 }, false);
    expect(call.status).toBe("queued");

    await page.goto(`/calls/${call.id}`);
    const status = page.locator("[data-status]").first();
    await expect(status).toHaveAttribute("data-status", "queued");
    await expect(page.getByRole("region", { name: "Call summary" })).toContainText("Queued at");
    await expect(page.getByTestId("call-started")).toContainText("not started");
    await expect(page.getByTestId("timeline-state")).toHaveText("queued");
    await expect(page.getByRole("log", { name: "stderr timeline" })).toContainText("Queued: the call waits for a worker that may take it");

    await page.getByRole("button", { name: "Cancel call" }).click();
    const dialog = page.getByRole("dialog", { name: "Cancel this queued call?" });
    await expect(dialog).toContainText("It has not started yet");
    await expect(dialog).not.toContainText("TERM");
    await expect(dialog).not.toContainText("process group");
    await dialog.getByRole("button", { name: "Cancel queued call" }).click();

    await expect(status).toHaveAttribute("data-status", "cancelled");
    await expect(page.getByTestId("call-failure")).toContainText("cancelled before it started");
    await expect(page.getByTestId("call-started")).toContainText("not started");
    await expect(page.getByTestId("call-started").locator("time")).toHaveCount(1);
  } finally {
    await Promise.all(blockers.map((id) => request.post(`/api/v1/calls/${id}/cancel`)));
  }
});

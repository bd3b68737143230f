/**
 * A hostile web page in the operator's browser is a hostile HTTP client too: the console listens on
 * 127.0.0.1 without a login in this release, and a page on any site may send it a "simple" POST (a
 * form, or fetch with a text/plain body, which needs no CORS preflight). Such a request carries the
 * page's Origin; it must never start a call, reload the loader or cancel a call (DESIGN.md: a
 * cross-origin state-changing request answers 403 `bad_origin`).
 */
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import * as reloadRoute from "@/app/api/v1/loader/reload/route";
import * as skillCallsRoute from "@/app/api/v1/skills/[name]/calls/route";
import * as skillsRoute from "@/app/api/v1/skills/route";
import { db } from "@/lib/server/db";
import { invoke } from "../helpers/route-client";
import { setUpTestConsole, writeSkill, type TestConsole } from "../helpers/test-console";

let testConsole: TestConsole;
let ranMarker: string;

function post(headers: Record<string, string>, body: unknown = '{"args": {}}') {
  return invoke(skillCallsRoute.POST, "/api/v1/skills/touch/calls", { method: "POST", body, params: { name: "touch" }, headers: { "content-type": "text/plain", ...headers } });
}

beforeAll(async () => {
  testConsole = await setUpTestConsole({ MARKER_DIR: "" });
  process.env.MARKER_DIR = testConsole.dir;
  ranMarker = path.join(testConsole.dir, "touch-ran");
  writeSkill(testConsole.root, "touch", { name: "touch", env_allow: ["MARKER_DIR"] }, 'touch "$MARKER_DIR/touch-ran"; echo "{}"');
});

describe("cross-origin state-changing requests", () => {
  it.each([
    ["another site's Origin", { origin: "http://evil.example", host: "127.0.0.1:3000" }],
    ["another port on the same host", { origin: "http://127.0.0.1:8080", host: "127.0.0.1:3000" }],
    ["an opaque (null) Origin", { origin: "null", host: "127.0.0.1:3000" }],
    ["Sec-Fetch-Site: cross-site", { "sec-fetch-site": "cross-site", host: "127.0.0.1:3000" }],
  ])("answers 403 bad_origin to a call from %s and starts nothing", async (_what, headers) => {
    const before = await db().call.count();
    const response = await post(headers);
    expect(response.status).toBe(403);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("bad_origin");
    expect(fs.existsSync(ranMarker)).toBe(false);
    expect(await db().call.count()).toBe(before);
  });

  it("refuses a cross-origin loader reload", async () => {
    const response = await invoke(reloadRoute.POST, "/api/v1/loader/reload", { method: "POST", headers: { origin: "http://evil.example", host: "127.0.0.1:3000" } });
    expect(response.status).toBe(403);
  });

  it("serves the console's own pages (same Origin) and clients that send no Origin (curl, agents)", async () => {
    expect((await post({ origin: "http://127.0.0.1:3000", host: "127.0.0.1:3000", "sec-fetch-site": "same-origin" })).status).toBe(200);
    expect((await post({ origin: "https://console.example.org", host: "127.0.0.1:3000", "x-forwarded-host": "console.example.org" })).status).toBe(200);
    expect((await post({})).status).toBe(200);
    expect(fs.existsSync(ranMarker)).toBe(true);
  });

  it("leaves reads alone (a cross-origin page cannot read the answer anyway)", async () => {
    const response = await invoke(skillsRoute.GET, "/api/v1/skills", { headers: { origin: "http://evil.example" } });
    expect(response.status).toBe(200);
  });
});

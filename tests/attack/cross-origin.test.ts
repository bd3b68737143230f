/**
 * A hostile web page in the operator's browser is a hostile HTTP client too: the browser attaches the
 * operator's session cookie to a "simple" POST from any site (a form, or fetch with a text/plain body,
 * which needs no CORS preflight). Such a request carries the page's Origin, or none/`null` from some
 * frames and redirects; it must never start a call, reload the loader or cancel a call (DESIGN.md: a
 * state-changing request authenticated by cookie with a missing or `null` Origin, or one from another
 * origin, answers 403 `bad_origin`). Bearer tokens are not ambient, so they need no Origin.
 */
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import * as loginRoute from "@/app/api/v1/auth/login/route";
import * as reloadRoute from "@/app/api/v1/loader/reload/route";
import * as tokensRoute from "@/app/api/v1/tokens/route";
import * as skillCallsRoute from "@/app/api/v1/skills/[name]/calls/route";
import * as skillsRoute from "@/app/api/v1/skills/route";
import { db } from "@/lib/server/db";
import { invoke } from "../helpers/route-client";
import { setUpTestConsole, writeSkill, type TestConsole } from "../helpers/test-console";
import { signIn, TEST_ADMIN } from "../helpers/test-people";

let testConsole: TestConsole;
let ranMarker: string;
let cookie: string;

/** A text/plain POST starting a call, with the admin's session cookie and the given headers only. */
function post(headers: Record<string, string>, body: unknown = '{"args": {}}') {
  return invoke(skillCallsRoute.POST, "/api/v1/skills/touch/calls", { method: "POST", body, params: { name: "touch" }, as: { cookie }, headers: { "content-type": "text/plain", ...headers } });
}

beforeAll(async () => {
  testConsole = await setUpTestConsole({ MARKER_DIR: "" });
  process.env.MARKER_DIR = testConsole.dir;
  ranMarker = path.join(testConsole.dir, "touch-ran");
  writeSkill(testConsole.root, "touch", { name: "touch", env_allow: ["MARKER_DIR"] }, 'touch "$MARKER_DIR/touch-ran"; echo "{}"');
  cookie = (await signIn(TEST_ADMIN.email, TEST_ADMIN.password)).cookie!;
});

describe("cross-origin state-changing requests", () => {
  it.each([
    ["another site's Origin", { origin: "http://evil.example", host: "127.0.0.1:3000" }],
    ["another port on the same host", { origin: "http://127.0.0.1:8080", host: "127.0.0.1:3000" }],
    ["an opaque (null) Origin", { origin: "null", host: "127.0.0.1:3000" }],
    ["no Origin at all", { host: "127.0.0.1:3000" }],
    ["the right host over another scheme", { origin: "https://127.0.0.1:3000", host: "127.0.0.1:3000" }],
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
    const response = await invoke(reloadRoute.POST, "/api/v1/loader/reload", { method: "POST", as: { cookie }, headers: { origin: "http://evil.example", host: "127.0.0.1:3000" } });
    expect(response.status).toBe(403);
  });

  it("refuses a sign-in posted by another site's page (login CSRF)", async () => {
    const response = await invoke(loginRoute.POST, "/api/v1/auth/login", {
      as: "anonymous",
      body: { email: TEST_ADMIN.email, password: TEST_ADMIN.password },
      headers: { origin: "http://evil.example", host: "127.0.0.1:3000" },
    });
    expect(response.status).toBe(403);
    expect(response.headers.getSetCookie()).toEqual([]);
  });

  it("answers 401, not bad_origin, to a cross-origin request without credentials", async () => {
    const before = await db().call.count();
    const response = await invoke(skillCallsRoute.POST, "/api/v1/skills/touch/calls", { as: "anonymous", body: { args: {} }, params: { name: "touch" }, headers: { origin: "http://evil.example" } });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("unauthenticated");
    // Refused before anything was stored, so nothing can run later.
    expect(await db().call.count()).toBe(before);
  });

  it("serves the console's own pages (same Origin, whatever name the host is reached by) and bearer tokens without Origin", async () => {
    expect((await post({ origin: "http://127.0.0.1:3000", host: "127.0.0.1:3000", "sec-fetch-site": "same-origin" })).status).toBe(200);
    expect((await post({ origin: "http://console.lan:3000", host: "console.lan:3000" })).status).toBe(200);
    expect((await post({ origin: "https://console.example.org", host: "127.0.0.1:3000", "x-forwarded-host": "console.example.org", "x-forwarded-proto": "https" })).status).toBe(200);
    expect(fs.existsSync(ranMarker)).toBe(true);
    fs.rmSync(ranMarker);
    const created = await invoke(tokensRoute.POST, "/api/v1/tokens", { body: { persona: "default", name: "agent" } });
    expect(created.status).toBe(201);
    const { token } = (await created.json()) as { token: string };
    const response = await invoke(skillCallsRoute.POST, "/api/v1/skills/touch/calls", { as: { authorization: `Bearer ${token}` }, body: { args: {} }, params: { name: "touch" } });
    expect(response.status).toBe(200);
    expect(fs.existsSync(ranMarker)).toBe(true);
  });

  it("leaves reads alone (a cross-origin page cannot read the answer anyway)", async () => {
    const response = await invoke(skillsRoute.GET, "/api/v1/skills", { headers: { origin: "http://evil.example" } });
    expect(response.status).toBe(200);
  });
});

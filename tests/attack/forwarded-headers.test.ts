/**
 * Forwarded headers are the client's word unless a proxy the operator named set them (issue 10 point
 * 4): a client that sends `X-Forwarded-Host: evil.example` with `Origin: https://evil.example` must not
 * pass the Origin check, and one that sends `X-Forwarded-For` must not choose the address the sign-in
 * rate limit and the audit trail see. Behind a proxy CONSOLE_TRUSTED_PROXIES names, both are believed.
 * Real HTTP through the production router, stamped by scripts/peer-address.mjs as console-server.mjs does.
 */
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/server/db";
import { startTestApiServer, type TestApiServer } from "../helpers/api-server";
import { setUpTestConsole, writeSkill, type TestConsole } from "../helpers/test-console";
import { signIn, TEST_ADMIN } from "../helpers/test-people";
// @ts-expect-error -- a plain ESM script without type declarations
import { parseTrustedProxies } from "../../scripts/peer-address.mjs";

let testConsole: TestConsole;
let ranMarker: string;
let cookie: string;
let direct: TestApiServer;
let behindProxy: TestApiServer;

/** One raw HTTP request (node:http sends Origin and Host exactly as given). */
function send(base: string, method: string, pathname: string, headers: Record<string, string>, body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(new URL(pathname, base), { method, headers: { ...headers, ...(body === undefined ? {} : { "content-length": String(Buffer.byteLength(body)) }) } }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (text += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body: text }));
    });
    request.on("error", reject);
    request.end(body);
  });
}

/** A cookie-authenticated call from a page of evil.example, which claims through forwarded headers to be this console. */
function forgedCall(server: TestApiServer) {
  const port = new URL(server.url).port;
  return send(server.url, "POST", "/api/v1/skills/touch/calls", {
    cookie,
    host: `127.0.0.1:${port}`,
    origin: "https://evil.example",
    "x-forwarded-host": "evil.example",
    "x-forwarded-proto": "https",
    "content-type": "text/plain",
  }, '{"args": {}}');
}

beforeAll(async () => {
  testConsole = await setUpTestConsole({ MARKER_DIR: "" });
  process.env.MARKER_DIR = testConsole.dir;
  ranMarker = path.join(testConsole.dir, "touch-ran");
  writeSkill(testConsole.root, "touch", { name: "touch", env_allow: ["MARKER_DIR"] }, 'touch "$MARKER_DIR/touch-ran"; echo "{}"');
  cookie = (await signIn(TEST_ADMIN.email, TEST_ADMIN.password)).cookie!;
  direct = await startTestApiServer();
  behindProxy = await startTestApiServer({ trustedProxies: "10.0.0.0/8, 127.0.0.1" });
});

afterAll(async () => {
  await direct?.close();
  await behindProxy?.close();
});

describe("forwarded headers", () => {
  it("drops X-Forwarded-Host and -Proto from a client that is not a trusted proxy: the forged Origin is refused", async () => {
    const before = await db().call.count();
    const answer = await forgedCall(direct);
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body)).toEqual({ error: { code: "bad_origin", message: "cross-origin request refused: Origin https://evil.example is not this console (scheme)" } });
    expect(fs.existsSync(ranMarker)).toBe(false);
    expect(await db().call.count()).toBe(before);
  });

  it("believes them from a proxy CONSOLE_TRUSTED_PROXIES names (the proxy answers for its Host)", async () => {
    const answer = await forgedCall(behindProxy);
    expect(answer.status).toBe(200);
    expect(fs.existsSync(ranMarker)).toBe(true);
    fs.rmSync(ranMarker);
  });

  it("records the TCP peer, not X-Forwarded-For, as the address of a direct client; behind a trusted proxy, the client it names", async () => {
    const failedLogin = (server: TestApiServer, forwardedFor: string) =>
      send(server.url, "POST", "/api/v1/auth/login", { "content-type": "application/json", "x-forwarded-for": forwardedFor }, JSON.stringify({ email: TEST_ADMIN.email, password: "wrong password" }));
    expect((await failedLogin(direct, "198.51.100.7")).status).toBe(401);
    // The proxy chain: the client, then a proxy inside 10/8 that the trusted one was reached from.
    expect((await failedLogin(behindProxy, "198.51.100.8, 10.1.2.3")).status).toBe(401);
    const rows = await db().auditEvent.findMany({ where: { action: "auth.login_failed" }, orderBy: { id: "desc" }, take: 2 });
    expect(rows.map((row) => (JSON.parse(row.details) as { address?: string }).address)).toEqual(["198.51.100.8", "127.0.0.1"]);
  });

  it("refuses a CONSOLE_TRUSTED_PROXIES entry that is not an address or a range, naming it", () => {
    expect(() => parseTrustedProxies("10.0.0.0/8, proxy.lan")).toThrow('CONSOLE_TRUSTED_PROXIES: "proxy.lan" is not an IP address or a CIDR range (e.g. 10.0.0.0/8, ::1)');
    expect(() => parseTrustedProxies("10.0.0.0/33")).toThrow('"10.0.0.0/33" is not an IP address');
    expect(parseTrustedProxies("").list).toBeNull();
    expect(parseTrustedProxies(" ::1 192.0.2.0/24 ").entries).toEqual(["::1", "192.0.2.0/24"]);
  });
});

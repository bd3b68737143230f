/**
 * A PostgreSQL restart while the console serves (issue 11 point 4): while the server is down,
 * requests answer 503 `unavailable` with Retry-After (never 500) and write nothing; once it is back,
 * the same console serves again without a restart, calls included. On a cluster of this file's own
 * (scripts/postgres-cluster.mjs), so the suite's shared one keeps running.
 */
import { execFileSync } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as callsRoute from "@/app/api/v1/calls/route";
import { db } from "@/lib/server/db";
import type { Call } from "@/lib/types/call";
// @ts-expect-error -- a plain ESM script without type declarations
import { startPostgresCluster } from "../../scripts/postgres-cluster.mjs";
import { requestCall } from "../api/approvals-fixtures";
import { invoke } from "../helpers/route-client";
import { onPostgres, reloadTestConsole, setUpTestConsole, writeSkill } from "../helpers/test-console";

interface Cluster {
  url: string;
  stop(): void;
  pause(): void;
  resume(): void;
}

let cluster: Cluster | null = null;

beforeAll(async () => {
  if (!onPostgres()) return;
  cluster = (await startPostgresCluster({ database: "outage" })) as Cluster;
  execFileSync(path.resolve("node_modules/.bin/prisma"), ["migrate", "deploy"], { env: { ...process.env, DATABASE_URL: cluster.url }, stdio: "pipe" });
  const testConsole = await setUpTestConsole({ DATABASE_URL: cluster.url });
  writeSkill(testConsole.root, "ok", { name: "ok" }, "echo 'working' >&2; echo '{\"done\": true}'");
  await reloadTestConsole();
});

afterAll(() => cluster?.stop());

/** Asks `attempt` again every 200 ms until it answers `status`, for at most `ms`; returns the last answer. */
async function until(status: number, attempt: () => Promise<Response>, ms = 15_000): Promise<Response> {
  const deadline = Date.now() + ms;
  for (;;) {
    const response = await attempt();
    if (response.status === status || Date.now() > deadline) return response;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe.runIf(onPostgres())("a PostgreSQL restart", () => {
  it("answers 503 unavailable while the server is down, writes nothing, and serves again once it is back", { timeout: 60_000 }, async () => {
    const before = (await (await requestCall("ok", { args: {} })).json()) as { call: Call };
    expect(before.call.status).toBe("succeeded");
    const callsBefore = await db().call.count();

    cluster!.pause();
    try {
      const list = await invoke(callsRoute.GET, "/api/v1/calls");
      expect(list.status).toBe(503);
      expect(list.headers.get("retry-after")).toBe("1");
      expect(((await list.json()) as { error: unknown }).error).toEqual({ code: "unavailable", message: "the database is unavailable; retry in 1 s", details: { retryAfterSeconds: 1 } });
      const refused = await requestCall("ok", { args: {} });
      expect(refused.status).toBe(503);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("unavailable");
    } finally {
      cluster!.resume();
    }

    // Back without restarting the console: the pool replaces the connections the restart cut.
    expect((await until(200, () => invoke(callsRoute.GET, "/api/v1/calls"))).status).toBe(200);
    expect(await db().call.count()).toBe(callsBefore);
    const after = (await (await until(200, () => requestCall("ok", { args: {} }))).json()) as { call: Call };
    expect(after.call.status).toBe("succeeded");
    expect(await db().call.count()).toBe(callsBefore + 1);
  });
});

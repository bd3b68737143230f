/**
 * Calls past SKILL_MAX_CONCURRENT_CALLS wait as `queued`, each holding its args (up to
 * SKILL_ARGS_LIMIT_BYTES, 8 MiB) in the console's memory until it gets a slot. A client that keeps
 * the slots busy and sends a few hundred large calls with `"wait": false` would exhaust the heap of the
 * process running as root. The queue must be bounded: past it a call answers 503 `unavailable` and
 * nothing is stored or started.
 */
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import * as callRoute from "@/app/api/v1/calls/[id]/route";
import * as skillCallsRoute from "@/app/api/v1/skills/[name]/calls/route";
import { db } from "@/lib/server/db";
import type { Call } from "@/lib/types/call";
import { invoke } from "../helpers/route-client";
import { setUpTestConsole, writeSkill, type TestConsole } from "../helpers/test-console";

const ARGS_LIMIT = 64 * 1024;
let testConsole: TestConsole;

function start(skill: string, body: unknown) {
  return invoke(skillCallsRoute.POST, `/api/v1/skills/${skill}/calls`, { body, params: { name: skill } });
}

async function statusOf(id: string): Promise<string> {
  return ((await (await invoke(callRoute.GET, `/api/v1/calls/${id}`, { params: { id } })).json()) as { call: Call }).call.status;
}

beforeAll(async () => {
  testConsole = await setUpTestConsole({ SKILL_MAX_CONCURRENT_CALLS: "1", SKILL_ARGS_LIMIT_BYTES: String(ARGS_LIMIT), MARKER_DIR: "" });
  process.env.MARKER_DIR = testConsole.dir;
  writeSkill(testConsole.root, "blocker", { name: "blocker", env_allow: ["MARKER_DIR"] }, 'while [ ! -e "$MARKER_DIR/release" ]; do sleep 0.02; done; echo "{}"');
  writeSkill(testConsole.root, "open", { name: "open" }, 'cat > /dev/null; echo "{}"');
});

describe("the queue of calls waiting for a slot", () => {
  it("is bounded in bytes: a call past it answers 503 unavailable and nothing is stored", async () => {
    const blocker = ((await (await start("blocker", { wait: false })).json()) as { call: Call }).call;
    await expect.poll(() => statusOf(blocker.id)).toBe("running");
    const big = { args: { blob: "x".repeat(ARGS_LIMIT - 100) }, wait: false };
    const accepted: string[] = [];
    let refused: Response | null = null;
    for (let i = 0; i < 64 && refused === null; i++) {
      const response = await start("open", big);
      if (response.status === 202) accepted.push(((await response.json()) as { call: Call }).call.id);
      else refused = response;
    }
    expect(refused, "a call past the queue's bound").not.toBeNull();
    expect(refused!.status).toBe(503);
    expect(((await refused!.json()) as { error: { code: string } }).error.code).toBe("unavailable");
    expect(accepted.length).toBeGreaterThanOrEqual(2);
    expect(accepted.length).toBeLessThan(16);
    const stored = await db().call.count({ where: { skill: "open" } });
    expect(stored).toBe(accepted.length);

    fs.writeFileSync(path.join(testConsole.dir, "release"), "");
    for (const id of accepted) await expect.poll(() => statusOf(id), { timeout: 10_000 }).toBe("succeeded");
    // Once the queue drained, calls are accepted again.
    expect((await start("open", big)).status).toBe(202);
  }, 60_000);
});

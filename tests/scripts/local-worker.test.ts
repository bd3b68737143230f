/**
 * The local worker of `npm start` (scripts/local-worker.mjs): started by the console server with a
 * token it mints and hands over stdin, restarted when it dies, and stopped with the console — its
 * running call ends `interrupted` with its process tree gone.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/server/db";
import { mintLocalWorkerToken } from "@/lib/server/workers/local-worker";
import type { Call } from "@/lib/types/call";
import { requestCall, waitForStatus } from "../api/approvals-fixtures";
import { setUpTestConsole, writeSkill } from "../helpers/test-console";
import { testApiUrl, useOwnWorkers } from "../helpers/test-worker";
// @ts-expect-error -- a plain ESM script without type declarations
import { startLocalWorker } from "../../scripts/local-worker.mjs";

interface LocalWorker {
  stop(signal?: string, graceMs?: number): Promise<void>;
}

let supervisor: LocalWorker | null = null;
const lines: string[] = [];

/** Processes whose command line contains `text`, only this test process's children when `ownChildren`. */
function processesWith(text: string, ownChildren = false): number[] {
  const pids: number[] = [];
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (!fs.readFileSync(`/proc/${name}/cmdline`, "utf8").includes(text)) continue;
      const parent = Number(/^PPid:\s+(\d+)$/m.exec(fs.readFileSync(`/proc/${name}/status`, "utf8"))?.[1]);
      if (!ownChildren || parent === process.pid) pids.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

beforeAll(async () => {
  const testConsole = await setUpTestConsole({ WORKER_STATE_DIR: "", SKILL_SANDBOX: "bwrap" });
  process.env.WORKER_STATE_DIR = path.join(testConsole.dir, "local-state");
  useOwnWorkers();
  writeSkill(testConsole.root, "long", { name: "long", timeout_seconds: 120 }, "sleep 600.5151");
  writeSkill(testConsole.root, "quick", { name: "quick" }, 'echo "{}"');
});

afterAll(async () => {
  await supervisor?.stop("SIGKILL", 1000);
});

describe("the local worker", () => {
  it("runs calls, comes back after kill -9, and stops with the console, interrupting its call", async () => {
    supervisor = startLocalWorker({ root: path.resolve(__dirname, "../.."), consoleUrl: await testApiUrl(), mintToken: mintLocalWorkerToken, log: (line: string) => lines.push(line) });
    const first = (await (await requestCall("quick", { args: {} })).json()) as { call: Call };
    expect(first.call).toMatchObject({ status: "succeeded", worker: "local" });
    const [workerPid] = processesWith(".worker/worker.mjs", true);
    expect(workerPid).toBeDefined();
    // Its token came over stdin, never through its environment.
    expect(fs.readFileSync(`/proc/${workerPid}/environ`, "utf8")).not.toMatch(/WORKER_TOKEN|DATABASE_URL|skw_/);

    process.kill(workerPid!, "SIGKILL");
    await expect.poll(() => lines.join("\n"), { timeout: 10_000 }).toContain("the local worker exited (SIGKILL); starting it again in 1 s");
    const again = (await (await requestCall("quick", { args: {} })).json()) as { call: Call };
    expect(again.call).toMatchObject({ status: "succeeded", worker: "local" });
    // The first token was revoked when the second was minted: one live local token at a time.
    expect(await db().workerToken.count({ where: { local: true, revokedAt: null } })).toBe(1);

    const { call } = (await (await requestCall("long", { args: {}, wait: false })).json()) as { call: Call };
    await waitForStatus(call.id, ["running"]);
    await expect.poll(() => processesWith("600.5151").length, { timeout: 10_000 }).toBe(1);
    await supervisor!.stop("SIGTERM", 10_000);
    supervisor = null;
    expect(processesWith(".worker/worker.mjs", true)).toEqual([]);
    expect(processesWith("600.5151")).toEqual([]);
    expect(await db().call.findUniqueOrThrow({ where: { id: call.id } })).toMatchObject({ status: "interrupted", error: "the worker stopped (SIGTERM) while the call ran" });
  }, 60_000);
});

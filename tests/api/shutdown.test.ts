import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/server/db";
import { isGroupAlive } from "@/lib/server/executor";
import type { Call } from "@/lib/types/call";
import { reloadTestConsole, setUpTestConsole, writeSkill, type TestConsole } from "../helpers/test-console";
import { testWorkers } from "../helpers/test-worker";
import { requestCall, waitForStatus } from "./approvals-fixtures";

// A worker that stops (SIGTERM, or the console that started it stopping: scripts/console-server.mjs
// stops its local worker first) ends its calls `interrupted` itself, with their process groups gone,
// and reports them, instead of leaving them `running` until their lease lapses. A queued call it never
// claimed stays queued for another worker.

let testConsole: TestConsole;

beforeAll(async () => {
  testConsole = await setUpTestConsole({ SKILL_MAX_CONCURRENT_CALLS: "1" });
  writeSkill(testConsole.root, "sleeper", { name: "sleeper", timeout_seconds: 60 }, "sleep 30 & sleep 30");
  await reloadTestConsole();
});

describe("a worker that stops", () => {
  it("ends its running call interrupted with its process group terminated, and leaves a queued call queued", async () => {
    const running = ((await (await requestCall("sleeper", { args: {}, wait: false })).json()) as { call: Call }).call;
    await waitForStatus(running.id, ["running"]);
    const queued = ((await (await requestCall("sleeper", { args: {}, wait: false })).json()) as { call: Call }).call;
    let pgid: number | null = null;
    for (let i = 0; i < 100 && pgid === null; i++) {
      pgid = (await db().call.findUniqueOrThrow({ where: { id: running.id } })).pgid;
      if (pgid === null) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // Reported by the worker while the child runs.
    expect(pgid).not.toBeNull();
    expect(isGroupAlive(pgid!)).toBe(true);

    await Promise.all(testWorkers().map((worker) => worker.stop("the worker stopped (SIGTERM) while the call ran")));

    const ran = await db().call.findUniqueOrThrow({ where: { id: running.id }, include: { events: { orderBy: { seq: "asc" } } } });
    expect(ran.status).toBe("interrupted");
    expect(ran.error).toBe("the worker stopped (SIGTERM) while the call ran");
    expect(ran.events.at(-1)?.line).toMatch(/^interrupted: the worker stopped \(SIGTERM\) while the call ran; process group terminated after \d+ ms$/);
    expect(ran.leaseUntil).toBeNull();
    expect(isGroupAlive(pgid!)).toBe(false);
    const waited = await db().call.findUniqueOrThrow({ where: { id: queued.id } });
    expect(waited.status).toBe("queued");
    expect(waited.startedAt).toBeNull();
    const session = await db().worker.findFirstOrThrow({ where: { name: "local" } });
    expect(session.stoppedAt).not.toBeNull();
  });
});

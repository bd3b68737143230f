import { beforeAll, describe, expect, it } from "vitest";
import { interruptLocalCalls } from "@/lib/server/calls/call-runner";
import { db } from "@/lib/server/db";
import { isGroupAlive } from "@/lib/server/executor";
import type { Call } from "@/lib/types/call";
import { reloadTestConsole, setUpTestConsole, writeSkill, type TestConsole } from "../helpers/test-console";
import { requestCall, waitForStatus } from "./approvals-fixtures";

// A console that stops (SIGTERM: scripts/console-server.mjs runs the shutdown hook) ends its calls
// `interrupted` itself, with their process groups gone, instead of leaving them `running` for the next
// console's lease recovery.

let testConsole: TestConsole;

beforeAll(async () => {
  testConsole = await setUpTestConsole({ SKILL_MAX_CONCURRENT_CALLS: "1" });
  writeSkill(testConsole.root, "sleeper", { name: "sleeper", timeout_seconds: 60 }, "sleep 30 & sleep 30");
  await reloadTestConsole();
});

describe("interruptLocalCalls (console shutdown)", () => {
  it("ends running and queued calls interrupted, terminating the running call's process group", async () => {
    const running = ((await (await requestCall("sleeper", { args: {}, wait: false })).json()) as { call: Call }).call;
    await waitForStatus(running.id, ["running"]);
    const queued = ((await (await requestCall("sleeper", { args: {}, wait: false })).json()) as { call: Call }).call;
    let pgid: number | null = null;
    for (let i = 0; i < 100 && pgid === null; i++) {
      pgid = (await db().call.findUniqueOrThrow({ where: { id: running.id } })).pgid;
      if (pgid === null) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // Recorded while the child runs (it once stayed null until the call ended: a lazy Prisma query).
    expect(pgid).not.toBeNull();
    expect(isGroupAlive(pgid!)).toBe(true);

    await interruptLocalCalls("the console stopped (SIGTERM) while the call ran; its process group was terminated");

    const ran = await db().call.findUniqueOrThrow({ where: { id: running.id }, include: { events: { orderBy: { seq: "asc" } } } });
    expect(ran.status).toBe("interrupted");
    expect(ran.error).toBe("the console stopped (SIGTERM) while the call ran; its process group was terminated");
    expect(ran.events.at(-1)?.line).toMatch(/^interrupted: the console stopped \(SIGTERM\) while the call ran; its process group was terminated; process group terminated after \d+ ms$/);
    expect(ran.leaseUntil).toBeNull();
    expect(isGroupAlive(pgid!)).toBe(false);
    const waited = await db().call.findUniqueOrThrow({ where: { id: queued.id } });
    expect(waited.status).toBe("interrupted");
    expect(waited.startedAt).toBeNull();
  });
});

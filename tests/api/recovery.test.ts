import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import * as callRoute from "@/app/api/v1/calls/[id]/route";
import { recoverInterruptedCalls } from "@/lib/server/calls/call-lease";
import { ensureConsoleStarted } from "@/lib/server/console-startup";
import { db } from "@/lib/server/db";
import { readProcessIdentity } from "@/lib/server/executor";
import type { CallWithEvents } from "@/lib/types/call";
import { isAlive } from "../executor/helpers";
import { invoke } from "../helpers/route-client";
import { setUpTestConsole, type TestConsole } from "../helpers/test-console";

let testConsole: TestConsole;
const startedAt = new Date(Date.now() - 60_000);
const lastEventAt = new Date(Date.now() - 30_000);

beforeAll(async () => {
  testConsole = await setUpTestConsole({ CALL_LEASE_MS: "60000" });
});

/** Starts a detached process group (a shell that leaves a grandchild) standing in for a dead console's child. */
function startOrphanGroup(): { pgid: number; grandchildPidFile: string } {
  const grandchildPidFile = path.join(testConsole.dir, `grandchild-${Date.now()}.pid`);
  const child = spawn("bash", ["-c", `trap "" TERM; sleep 60 & echo $! > ${grandchildPidFile}; wait`], { detached: true, stdio: "ignore" });
  child.unref();
  return { pgid: child.pid!, grandchildPidFile };
}


async function insertRunningCall(id: string, leaseUntil: Date, group: { pgid: number } | null) {
  const identity = group ? readProcessIdentity(group.pgid) : null;
  await db().call.create({
    data: {
      id,
      skill: "ghost",
      requestedBy: "anonymous",
      args: "{}",
      status: "running",
      startedAt,
      ownerId: "a-console-that-died",
      leaseUntil,
      pgid: group?.pgid ?? null,
      procStart: identity?.procStart ?? null,
      host: identity?.host ?? null,
      bootId: identity?.bootId ?? null,
      events: { create: [{ seq: 1, at: lastEventAt, stream: "stderr", line: "halfway there" }] },
    },
  });
}

describe("calls left running by a console that died", () => {
  it("marks a call whose owner's lease lapsed interrupted on start, keeps its stderr and kills its surviving group", async () => {
    const group = startOrphanGroup();
    await expect.poll(() => fs.existsSync(group.grandchildPidFile)).toBe(true);
    const grandchild = Number(fs.readFileSync(group.grandchildPidFile, "utf8"));
    await insertRunningCall("lapsed", new Date(Date.now() - 1000), group);
    await insertRunningCall("still-leased", new Date(Date.now() + 60_000), null);

    await ensureConsoleStarted();

    const { call } = (await (await invoke(callRoute.GET, "/api/v1/calls/lapsed", { params: { id: "lapsed" } })).json()) as { call: CallWithEvents };
    expect(call.status).toBe("interrupted");
    // The call ran until its last sign of life (its last event here), not until it was found.
    expect(call.endedAt).toBe(lastEventAt.toISOString());
    expect(call.durationMs).toBe(lastEventAt.getTime() - startedAt.getTime());
    expect(call.error).toBe("the console running this call stopped before it ended");
    expect(call.events.map((event) => [event.seq, event.stream, event.line])).toEqual([
      [1, "stderr", "halfway there"],
      [2, "system", `interrupted: the owning console stopped; its surviving process group ${group.pgid} was killed`],
    ]);
    expect(isAlive(group.pgid)).toBe(false);
    expect(isAlive(grandchild)).toBe(false);

    // A second console sharing the database does not touch a call whose owner still holds its lease.
    const alive = await db().call.findUniqueOrThrow({ where: { id: "still-leased" } });
    expect(alive.status).toBe("running");
  });

  it("recovers each lapsed call exactly once when several consoles sweep at the same time", async () => {
    await insertRunningCall("contested", new Date(Date.now() - 1000), null);
    const sweeps = await Promise.all([recoverInterruptedCalls(), recoverInterruptedCalls(), recoverInterruptedCalls()]);
    expect(sweeps.flat().filter((call) => call.id === "contested")).toHaveLength(1);
    const events = await db().callEvent.findMany({ where: { callId: "contested" }, orderBy: { seq: "asc" } });
    expect(events.map((event) => event.line)).toEqual(["halfway there", "interrupted: the owning console stopped before the call ended"]);
  });
});

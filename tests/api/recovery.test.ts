import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import * as callRoute from "@/app/api/v1/calls/[id]/route";
import { interruptLapsedCalls } from "@/lib/server/calls/interrupt-calls";
import { ensureConsoleStarted } from "@/lib/server/console-startup";
import { db } from "@/lib/server/db";
import { readProcessIdentity } from "@/lib/server/executor";
import type { CallWithEvents } from "@/lib/types/call";
import { killLeftoverGroups } from "@/lib/worker/running-records";
import { writeRunningRecord } from "@/lib/worker/running-records";
import { isAlive, waitForPid } from "../executor/helpers";
import { invoke } from "../helpers/route-client";
import { setUpTestConsole, type TestConsole } from "../helpers/test-console";
import { useOwnWorkers } from "../helpers/test-worker";

let testConsole: TestConsole;
const startedAt = new Date(Date.now() - 60_000);

beforeAll(async () => {
  testConsole = await setUpTestConsole({ CALL_LEASE_MS: "60000" });
  useOwnWorkers();
});

/** Starts a detached process group (a shell that leaves a grandchild) standing in for a dead worker's call. */
function startOrphanGroup(): { pgid: number; grandchildPidFile: string } {
  const grandchildPidFile = path.join(testConsole.dir, `grandchild-${Date.now()}.pid`);
  const child = spawn("bash", ["-c", `trap "" TERM; sleep 60 & echo $! > ${grandchildPidFile}; wait`], { detached: true, stdio: "ignore" });
  child.unref();
  return { pgid: child.pid!, grandchildPidFile };
}


async function insertRunningCall(id: string, leaseUntil: Date) {
  await db().call.create({
    data: {
      id,
      skill: "ghost",
      requestedBy: "anonymous",
      args: "{}",
      status: "running",
      startedAt,
      workerId: "a-worker-that-died",
      workerName: "gone",
      ownerId: "a-worker-that-died",
      leaseUntil,
      events: { create: [{ seq: 1, at: new Date(Date.now() - 30_000), stream: "stderr", line: "halfway there" }] },
    },
  });
}

describe("calls left running by a worker that died", () => {
  it("ends a call whose worker's lease lapsed interrupted on start, keeping its stderr; a call still leased is left alone", async () => {
    await insertRunningCall("lapsed", new Date(Date.now() - 1000));
    await insertRunningCall("still-leased", new Date(Date.now() + 60_000));

    await ensureConsoleStarted();

    const { call } = (await (await invoke(callRoute.GET, "/api/v1/calls/lapsed", { params: { id: "lapsed" } })).json()) as { call: CallWithEvents };
    expect(call.status).toBe("interrupted");
    expect(call.error).toBe("the worker gone stopped renewing its lease (it stopped, was killed or lost the console)");
    expect(call.events.map((event) => [event.seq, event.stream, event.line])).toEqual([
      [1, "stderr", "halfway there"],
      [2, "system", "interrupted: the worker gone stopped renewing its lease (it stopped, was killed or lost the console)"],
    ]);
    expect((await db().call.findUniqueOrThrow({ where: { id: "still-leased" } })).status).toBe("running");
    expect(await db().auditEvent.count({ where: { callId: "lapsed", action: "call.interrupted" } })).toBe(1);
  });

  it("ends each lapsed call exactly once when several sweeps run at the same time", async () => {
    await insertRunningCall("contested", new Date(Date.now() - 1000));
    const sweeps = await Promise.all([interruptLapsedCalls(), interruptLapsedCalls(), interruptLapsedCalls()]);
    expect(sweeps.flat().filter((call) => call.id === "contested")).toHaveLength(1);
    const events = await db().callEvent.findMany({ where: { callId: "contested" }, orderBy: { seq: "asc" } });
    expect(events.map((event) => event.line)).toEqual(["halfway there", "interrupted: the worker gone stopped renewing its lease (it stopped, was killed or lost the console)"]);
    expect(await db().auditEvent.count({ where: { callId: "contested", action: "call.interrupted" } })).toBe(1);
  });

  it("a restarted worker kills the process group its predecessor recorded, and only that one", async () => {
    const group = startOrphanGroup();
    const grandchild = await waitForPid(group.grandchildPidFile);
    const stateDir = path.join(testConsole.dir, "worker-state");
    writeRunningRecord(stateDir, "call-of-the-dead-worker", { pgid: group.pgid, identity: readProcessIdentity(group.pgid) });
    // A record whose process start time does not match (the pid was reused) is never killed.
    const other = startOrphanGroup();
    writeRunningRecord(stateDir, "stale-record", { pgid: other.pgid, identity: { ...readProcessIdentity(other.pgid), procStart: "1" } });

    expect(await killLeftoverGroups(stateDir, 200)).toBe(1);
    await expect.poll(() => isAlive(group.pgid)).toBe(false);
    await expect.poll(() => isAlive(grandchild)).toBe(false);
    expect(isAlive(other.pgid)).toBe(true);
    expect(fs.readdirSync(path.join(stateDir, "running"))).toEqual([]);
    process.kill(-other.pgid, "SIGKILL");
  });
});

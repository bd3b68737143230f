import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { isGroupAlive, killOrphanGroup, readProcessIdentity, type ProcessIdentity } from "@/lib/server/executor";
import { isAlive } from "./helpers";

const leaders: ChildProcess[] = [];

/** A detached group like a dead console's call would leave: a bash loop (the leader) and its sleeps. */
async function startOrphanLikeGroup(): Promise<number> {
  const leader = spawn("/bin/bash", ["-c", "echo ready; while :; do sleep 1; done"], { detached: true, stdio: ["ignore", "pipe", "ignore"] });
  leaders.push(leader);
  await new Promise((resolve) => leader.stdout?.once("data", resolve));
  if (leader.pid === undefined) throw new Error("the group leader did not start");
  return leader.pid;
}

afterEach(() => {
  for (const leader of leaders.splice(0)) {
    if (leader.pid !== undefined && isGroupAlive(leader.pid)) process.kill(-leader.pid, "SIGKILL");
  }
});

/** A pid no process uses now, so no group has it either. */
function unusedPid(): number {
  const pidMax = Number(readFileSync("/proc/sys/kernel/pid_max", "utf8"));
  for (let pid = pidMax - 1; pid > 1; pid -= 1) if (!isAlive(pid) && !isGroupAlive(pid)) return pid;
  throw new Error("no free pid");
}

describe("readProcessIdentity", () => {
  it("reads host, boot id and the start time (field 22 of /proc/<pid>/stat)", () => {
    const stat = readFileSync(`/proc/${process.pid}/stat`, "utf8");
    expect(readProcessIdentity(process.pid)).toEqual({
      host: hostname(),
      bootId: readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim(),
      procStart: stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19],
    });
  });

  it("has no start time for a pid that does not exist", () => {
    expect(readProcessIdentity(unusedPid()).procStart).toBeNull();
  });
});

describe("killOrphanGroup", () => {
  it("kills a recorded group that is still ours", async () => {
    const pgid = await startOrphanLikeGroup();
    const recorded = readProcessIdentity(pgid);
    expect(await killOrphanGroup(pgid, recorded, 200)).toBe("killed");
    expect(isGroupAlive(pgid)).toBe(false);
    expect(isAlive(pgid)).toBe(false);
  });

  it.each<{ name: string; change: (identity: ProcessIdentity) => ProcessIdentity }>([
    { name: "a reused pgid (other start time)", change: (identity) => ({ ...identity, procStart: String(Number(identity.procStart) + 1) }) },
    { name: "another boot", change: (identity) => ({ ...identity, bootId: "00000000-0000-0000-0000-000000000000" }) },
    { name: "another host", change: (identity) => ({ ...identity, host: `${identity.host}-elsewhere` }) },
  ])("leaves the group alone for $name", async ({ change }) => {
    const pgid = await startOrphanLikeGroup();
    expect(await killOrphanGroup(pgid, change(readProcessIdentity(pgid)), 200)).toBe("not_ours");
    expect(isAlive(pgid)).toBe(true);
    expect(isGroupAlive(pgid)).toBe(true);
  });

  it("reports a group that no longer exists as gone", async () => {
    const pgid = unusedPid();
    expect(await killOrphanGroup(pgid, { ...readProcessIdentity(process.pid), procStart: "1" }, 200)).toBe("gone");
  });

  it("never touches the console's own group, init or a bad id", async () => {
    const own = Number(readFileSync(`/proc/${process.pid}/stat`, "utf8").split(") ")[1]?.split(" ")[2]);
    expect(Number.isInteger(own) && own >= 1, `process group ${own}`).toBe(true);
    const here = readProcessIdentity(own);
    // (When the test runs in group 1, this is the init case below.)
    expect(await killOrphanGroup(own, here, 200)).toBe("not_ours");
    expect(await killOrphanGroup(1, here, 200)).toBe("not_ours");
    expect(await killOrphanGroup(0, here, 200)).toBe("not_ours");
    expect(await killOrphanGroup(-5, here, 200)).toBe("not_ours");
  });
});

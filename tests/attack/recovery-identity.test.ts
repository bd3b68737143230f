/**
 * Start-up recovery kills the process group of a call whose console died (DESIGN.md "Subprocess
 * skills"). It must prove the group is still the one that console started: a pid is reused once its
 * process and group are gone, so a recorded pgid may name somebody else's group by the time a console
 * restarts. When the leader still lives its start time decides; when only members are left, they must
 * at least be able to belong to a group the executor started.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isGroupAlive, killOrphanGroup, readProcessIdentity } from "@/lib/server/executor";
import { isAlive, readPid, waitUntil } from "../executor/helpers";

const leftovers: number[] = [];
afterEach(() => {
  for (const pid of leftovers.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
});

function tempFile(name: string): string {
  return path.join(fs.mkdtempSync(path.join(os.tmpdir(), "recovery-identity-")), name);
}

describe("killOrphanGroup when the group's leader is gone", () => {
  it("leaves alone a group that reuses the recorded id but was not started by the executor (another session)", async () => {
    // A shell job: its leader (the subshell) exits and leaves a member behind in the job's group,
    // inside the shell's session — as any job-control shell or daemon may do with a recycled pid.
    const leaderFile = tempFile("leader");
    const memberFile = tempFile("member");
    await new Promise<void>((resolve) => {
      const shell = spawn("/bin/bash", ["-c", `set -m; ( sleep 30 & echo $! > ${memberFile}; exit ) & echo $! > ${leaderFile}; wait $!`], { stdio: "ignore" });
      shell.once("exit", () => resolve());
    });
    const pgid = readPid(leaderFile);
    const member = readPid(memberFile);
    leftovers.push(member);
    expect(isAlive(pgid)).toBe(false);
    expect(isGroupAlive(pgid)).toBe(true);
    // What a dead console recorded for its call whose group had this id: same host and boot, another start.
    const recorded = { ...readProcessIdentity(process.pid), procStart: "1" };
    expect(await killOrphanGroup(pgid, recorded, 200)).toBe("not_ours");
    expect(isAlive(member)).toBe(true);
  });

  it("still kills what is left of a group the executor started (a session of its own) after its leader exited", async () => {
    const memberFile = tempFile("member");
    const leader = spawn("/bin/bash", ["-c", `sleep 30 & echo $! > ${memberFile}; sleep 0.3`], { detached: true, stdio: "ignore" });
    const recorded = readProcessIdentity(leader.pid!);
    await new Promise<void>((resolve) => leader.once("exit", () => resolve()));
    await waitUntil(() => fs.existsSync(memberFile), "the member's pid file");
    const member = readPid(memberFile);
    leftovers.push(member);
    expect(await killOrphanGroup(leader.pid!, recorded, 200)).toBe("killed");
    expect(isAlive(member)).toBe(false);
  });
});

/**
 * Attacks on what contains a call's processes (an attack review of the v1-freezer containment,
 * 2026-12-06). First: a call's thread group whose leader ended with exit(2) alone, not exit_group:
 * /proc shows the leader as a zombie while its other threads run on. Counted as gone, such a process of a host_pids call
 * outlived the call after success, timeout and cancel, its cgroups could not be removed, and the next
 * worker's sweep left it too (found by an attack review of the freezer containment, 2026-12-06; fixed
 * by isLiveProcess). Real processes under bubblewrap and the call's cgroups, no mocks.
 */
import { readFileSync, readdirSync } from "node:fs";
import { setTimeout as delay } from "node:timers/promises";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { releaseCgroupRun, sweepStaleCgroups, type SandboxHost } from "@/lib/server/executor/sandbox";
import {
  HOME,
  TEST_CGROUP_NAME,
  declare,
  detectTestHost,
  makeConsoleFixture,
  processesWith,
  removeLeftCgroups,
  removeTempDirs,
  runSandboxed,
  uniqueMarker,
  waitUntil,
  type SandboxRun,
} from "../sandbox/sandbox-fixtures";

const dirs: string[] = [];
const markers: string[] = [];
/** Thread-group ids the attacks left behind, SIGKILLed after each test (safety net). */
const leaders: number[] = [];
let host: SandboxHost;

beforeAll(async () => {
  host = await detectTestHost();
});
afterEach(async () => {
  for (const pid of leaders.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone
    }
  }
  await removeLeftCgroups().catch(() => undefined);
  for (const marker of markers.splice(0)) for (const pid of await processesWith(marker)) process.kill(pid, "SIGKILL");
  removeTempDirs(dirs);
});
afterAll(async () => {
  await delay(300);
  await releaseCgroupRun(host);
});

/** Live threads (state not Z/X) of thread group `tgid`; [] when it is gone. */
function liveThreads(tgid: number): string[] {
  try {
    return readdirSync(`/proc/${tgid}/task`).filter((tid) => {
      try {
        const stat = readFileSync(`/proc/${tgid}/task/${tid}/stat`, "utf8");
        const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
        return state !== "Z" && state !== "X";
      } catch {
        return false;
      }
    });
  } catch {
    return [];
  }
}

function leaderState(tgid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${tgid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
  } catch {
    return null;
  }
}

/**
 * A python process whose main thread ends with the raw exit(2) system call (not exit_group) while a
 * second thread keeps running: the kernel keeps the thread group, and /proc/<tgid>/stat shows the
 * leader's state, Z. After `actAfter` s the surviving thread starts `sleep 1000.$M` (proof that the
 * call's code still acts after the call ended) and then lives on.
 */
const ZOMBIE_LEADER_PY = String.raw`
import ctypes, os, subprocess, sys, threading, time
M = os.environ["M"]
def keep():
    time.sleep(float(os.environ.get("ACT_AFTER", "2")))
    subprocess.Popen(["sleep", "1000." + M], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while True:
        time.sleep(0.2)
threading.Thread(target=keep).start()
sys.stderr.write("leader %d\n" % os.getpid())
sys.stderr.flush()
os.close(1); os.close(2)
ctypes.CDLL(None).syscall(60, 0)
`;

function zombieLeaderScript(ending: "exit" | "hang"): string {
  return `python3 -c "$PY" &
sleep 0.5
echo ready >&2
${ending === "exit" ? "exit 0" : "while :; do sleep 0.05; done"}
`;
}

interface AttackRun {
  run: SandboxRun | null;
  removeError: string | null;
  leader: number | null;
  marker: string;
}

async function runZombieLeader(ending: "exit" | "hang", options: { hostPids: boolean; timeoutMs?: number; cancelOnReady?: boolean; hostOverride?: SandboxHost; withContainment?: boolean }): Promise<AttackRun> {
  const marker = uniqueMarker();
  markers.push(`sleep 1000.${marker}`);
  const fixture = makeConsoleFixture(dirs);
  let leader: number | null = null;
  let removeError: string | null = null;
  let run: SandboxRun | null = null;
  try {
    run = await runSandboxed({
      host: options.hostOverride ?? host,
      request: {
        command: "/bin/sh",
        args: ["-c", zombieLeaderScript(ending)],
        cwd: fixture.skill,
        env: { PATH: "/usr/bin:/bin", M: marker, PY: ZOMBIE_LEADER_PY, ACT_AFTER: "2" },
        binds: [{ path: fixture.skill, target: fixture.skill }],
        declaration: declare({ hostPids: options.hostPids }),
        hiddenPaths: [fixture.console],
        home: HOME,
      },
      timeoutMs: options.timeoutMs ?? 10_000,
      withContainment: options.withContainment ?? true,
      onLine: (line, running) => {
        const match = /^leader (\d+)$/.exec(line);
        if (match) {
          leader = Number(match[1]);
          // Inside a PID namespace the printed pid is the namespace's: found again from the host below.
          if (options.hostPids) leaders.push(leader);
        }
        if (line === "ready" && options.cancelOnReady) running.cancel();
      },
    });
  } catch (error) {
    removeError = error instanceof Error ? error.message : String(error);
  }
  return { run, removeError, leader, marker };
}

describe("a thread group whose leader exited alone (zombie leader, live threads)", () => {
  it.each([
    ["success", "exit" as const, {}],
    ["timeout", "hang" as const, { timeoutMs: 1500 }],
    ["cancel", "hang" as const, { cancelOnReady: true }],
  ])("host_pids call, %s: nothing of the call may remain", async (_name, ending, extra) => {
    const attack = await runZombieLeader(ending, { hostPids: true, ...extra });
    expect(attack.leader).not.toBeNull();
    const leader = attack.leader as number;
    // Past ACT_AFTER: the surviving thread, if any, has started its sleep after the call ended.
    await delay(2500);
    const report = {
      outcome: attack.run?.outcome.end ?? null,
      removeError: attack.removeError,
      leaderState: leaderState(leader),
      liveThreads: liveThreads(leader).length,
      sleepsStartedAfterTheCall: (await processesWith(`sleep 1000.${attack.marker}`)).length,
    };
    expect(report.liveThreads).toBe(0);
    expect(report.sleepsStartedAfterTheCall).toBe(0);
  });

  it("control: without host_pids the PID namespace takes the thread group with it", async () => {
    const attack = await runZombieLeader("exit", { hostPids: false, timeoutMs: 1500 });
    await delay(2500);
    expect(await processesWith(`sleep 1000.${attack.marker}`)).toEqual([]);
    expect(attack.removeError).toBeNull();
  });

  it("the start-up sweep (worker killed with -9, launcher gone too) kills it", async () => {
    // A run folder whose owner is dead: what a worker killed with -9 leaves for the next one.
    const deadRun = "run-4194000-1";
    const stale: SandboxHost = { ...host, cgroups: { ...host.cgroups, run: deadRun } };
    const attack = await runZombieLeader("exit", { hostPids: true, hostOverride: stale, withContainment: false });
    expect(attack.leader).not.toBeNull();
    const leader = attack.leader as number;
    expect(liveThreads(leader).length).toBeGreaterThan(0);
    const removed = await sweepStaleCgroups(host, TEST_CGROUP_NAME);
    await delay(2500);
    const report = { removed, leaderState: leaderState(leader), liveThreads: liveThreads(leader).length, sleeps: (await processesWith(`sleep 1000.${attack.marker}`)).length };
    // Clean up the stale folder whatever happened (kill the leader first so rmdir can work).
    try {
      process.kill(leader, "SIGKILL");
    } catch {
      // gone
    }
    await delay(200);
    await sweepStaleCgroups(host, TEST_CGROUP_NAME);
    expect(report.liveThreads).toBe(0);
    expect(report.sleeps).toBe(0);
  });
});

describe("stopped and traced processes against the kill (freeze → SIGKILL → thaw, or cgroup.kill)", () => {
  it.each([false, true])("SIGSTOPped escapees (host_pids %s) are gone after timeout and after exit", async (hostPids) => {
    for (const ending of ["exit", "hang"] as const) {
      const marker = `sleep 1000.${uniqueMarker()}`;
      markers.push(marker);
      const fixture = makeConsoleFixture(dirs);
      const script = `setsid sleep "$S" & kill -STOP $!
( sleep "$S" & kill -STOP $! ) &
python3 -c 'import os,signal,sys,time
pid=os.fork()
if pid==0:
    os.setsid(); os.execvp("sleep",["sleep",sys.argv[1]])
time.sleep(0.2); os.kill(pid, signal.SIGSTOP); os._exit(0)' "$S"
sleep 0.5
echo ready >&2
${ending === "exit" ? "exit 0" : "while :; do sleep 0.05; done"}`;
      const run = await runSandboxed({
        host,
        request: { command: "/bin/sh", args: ["-c", script], cwd: fixture.skill, env: { PATH: "/usr/bin:/bin", S: marker.slice(6) }, binds: [{ path: fixture.skill, target: fixture.skill }], declaration: declare({ hostPids }), hiddenPaths: [fixture.console], home: HOME },
        timeoutMs: 1500,
        watch: marker,
      });
      expect(run.lines).toContain("ready");
      expect(run.leftAfterRun).toEqual([]);
      expect(await processesWith(marker)).toEqual([]);
    }
  });

  it("a process stopped under ptrace by its own child (host_pids) is gone after the call", async () => {
    const marker = `sleep 1000.${uniqueMarker()}`;
    markers.push(marker);
    const fixture = makeConsoleFixture(dirs);
    // The child PTRACE_TRACEMEs and stops itself (TASK_TRACED); the tracer then sleeps in the background.
    const py = String.raw`
import ctypes, os, signal, sys, time
libc = ctypes.CDLL(None, use_errno=True)
pid = os.fork()
if pid == 0:
    libc.ptrace(0, 0, None, None)
    os.kill(os.getpid(), signal.SIGSTOP)
    os.execvp("sleep", ["sleep", sys.argv[1]])
os.setsid()
os.waitpid(pid, os.WUNTRACED)
sys.stderr.write("traced\n"); sys.stderr.flush()
os.execvp("sleep", ["sleep", sys.argv[1]])
`;
    const run = await runSandboxed({
      host,
      request: { command: "/bin/sh", args: ["-c", `python3 -c "$PY" "$S" & sleep 0.5; echo ready >&2; exit 0`], cwd: fixture.skill, env: { PATH: "/usr/bin:/bin", S: marker.slice(6), PY: py }, binds: [{ path: fixture.skill, target: fixture.skill }], declaration: declare({ hostPids: true }), hiddenPaths: [fixture.console], home: HOME },
      watch: marker,
    });
    expect(run.leftAfterRun).toEqual([]);
    expect(await processesWith(marker)).toEqual([]);
  });
});

describe("leaving the call's cgroups from inside", () => {
  it("writes to tasks/cgroup.procs/freezer.state fail and the process stays in its cgroups", async () => {
    const fixture = makeConsoleFixture(dirs);
    const script = `for f in /sys/fs/cgroup/*/tasks /sys/fs/cgroup/*/cgroup.procs /sys/fs/cgroup/freezer/freezer.state /sys/fs/cgroup/*/../tasks; do
  (echo 0 > "$f") 2>/dev/null && echo "WROTE $f" >&2
done
(echo THAWED > /sys/fs/cgroup/freezer/freezer.state) 2>/dev/null && echo "WROTE freezer.state" >&2
ls /sys/fs/cgroup 2>&1 | head -3 >&2
cat /proc/self/cgroup >&2`;
    for (const hostPids of [false, true]) {
      const run = await runSandboxed({
        host,
        request: { command: "/bin/sh", args: ["-c", script], cwd: fixture.skill, env: { PATH: "/usr/bin:/bin" }, binds: [{ path: fixture.skill, target: fixture.skill }], declaration: declare({ hostPids }), hiddenPaths: [fixture.console], home: HOME },
      });
      expect(run.lines.filter((line) => line.startsWith("WROTE"))).toEqual([]);
    }
  });
});

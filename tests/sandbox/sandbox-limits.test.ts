import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startProcess } from "@/lib/server/executor";
import { CallCgroup, releaseCgroupRun, sweepStaleCgroups, type SandboxHost, type SandboxLimits } from "@/lib/server/executor/sandbox";
import {
  DEFAULT_LIMITS,
  HOME,
  TEST_CGROUP_NAME,
  declare,
  detectTestHost,
  makeConsoleFixture,
  processesWith,
  removeTempDirs,
  runSandboxed,
  uniqueMarker,
} from "./sandbox-fixtures";

let host: SandboxHost;
const dirs: string[] = [];

beforeAll(async () => {
  host = await detectTestHost({ ...DEFAULT_LIMITS, cpu: 0.2 });
  expect(host.limits).toEqual({
    memory: { by: "cgroup-v1", value: 1024 },
    pids: { by: "cgroup-v1", value: 256 },
    cpu: { by: "cgroup-v1", value: 0.2 },
  });
});
afterEach(() => removeTempDirs(dirs));
afterAll(async () => {
  await releaseCgroupRun(host);
});

function runLimited(script: string, limits: SandboxLimits, timeoutMs: number, onCgroup?: (cgroup: CallCgroup) => void) {
  const fixture = makeConsoleFixture(dirs);
  return runSandboxed({
    host,
    limits,
    timeoutMs,
    request: {
      command: "/bin/sh",
      args: ["-c", script],
      cwd: fixture.skill,
      env: { PATH: "/usr/bin:/bin" },
      binds: [{ path: fixture.skill, target: fixture.skill }],
      declaration: declare(),
      hiddenPaths: [fixture.console],
      home: HOME,
    },
    onLine: (_line, _running, cgroup) => onCgroup?.(cgroup),
  });
}

describe("sandbox limits", () => {
  it("a fork bomb under pids limit 64 ends at its timeout, named by limitHit, and leaves the test process unaffected", async () => {
    const marker = `sleep 1000.${uniqueMarker()}`;
    // bash retries a failed fork instead of exiting, so the bomb stays at the limit; the call itself
    // becomes a sleep (exec: no fork needed) and ends only at its timeout.
    const run = await runLimited(`echo started >&2; /bin/bash -c 'bomb() { bomb | bomb & }; bomb'; exec ${marker}`, { ...DEFAULT_LIMITS, pids: 64 }, 1500);
    expect(run.outcome.end).toBe("timed_out");
    expect(run.limitHit).toBe("pids limit 64 reached");
    expect(run.lines[0]).toBe("started");
    expect(run.lines.some((line) => line.includes("fork: retry: Resource temporarily unavailable"))).toBe(true);
    expect(await processesWith(marker)).toEqual([]);
    // The worker side still forks and runs normally.
    const after = await startProcess(
      { command: "/bin/echo", args: ["fine"], cwd: "/", env: {}, stdin: "", timeoutMs: 5000, killGraceMs: 100, exitDrainMs: 100, stdoutLimitBytes: 100, stderrLimitBytes: 100 },
      { onStderrLine: () => undefined },
    ).done;
    expect(after).toMatchObject({ end: "exited", exitCode: 0, stdout: "fine\n" });
  });

  it("a 4 GiB allocation under a 256 MiB memory limit is killed and named by limitHit", async () => {
    const marker = uniqueMarker();
    const run = await runLimited(`echo started >&2; exec /usr/bin/python3 -c 'data = b"x" * (4 << 30)  # ${marker}
print("allocated")'`, { ...DEFAULT_LIMITS, memoryMb: 256 }, 20_000);
    expect(run.outcome.end).toBe("exited");
    expect(run.outcome.stdout).toBe("");
    // bwrap reports its child's SIGKILL as 128 + 9.
    expect(run.outcome.exitCode).toBe(137);
    expect(run.limitHit).toBe("memory limit 256 MiB exceeded");
    expect(await processesWith(marker)).toEqual([]);
  });

  it("a call within its limits reports no limit hit", async () => {
    const run = await runLimited("/usr/bin/python3 -c 'data = b\"x\" * (64 << 20); print(len(data))'", { ...DEFAULT_LIMITS, memoryMb: 256, pids: 64 }, 10_000);
    expect(run.outcome).toMatchObject({ end: "exited", exitCode: 0, stdout: `${64 << 20}\n` });
    expect(run.limitHit).toBeNull();
  });

  it("a cpu limit of 0.2 cores throttles a busy loop", async () => {
    let stat = "";
    let quota = "";
    const run = await runLimited(
      "echo started >&2; end=$(( $(date +%s) + 1 )); while [ $(date +%s) -le $end ]; do :; done; echo done >&2",
      { ...DEFAULT_LIMITS, cpu: 0.2 },
      10_000,
      (cgroup) => {
        const dir = cgroup.dirs.cpu ?? "/nonexistent";
        stat = readFileSync(path.join(dir, "cpu.stat"), "utf8");
        quota = readFileSync(path.join(dir, "cpu.cfs_quota_us"), "utf8").trim();
      },
    );
    expect(run.outcome).toMatchObject({ end: "exited", exitCode: 0 });
    expect(quota).toBe("20000");
    // Read at the "done" line: the loop ran over a second of wall time under a 20% quota.
    expect(Number(/^nr_throttled (\d+)$/m.exec(stat)?.[1] ?? "0")).toBeGreaterThan(0);
  });
});

describe("sandbox limits: the rlimit fallback", () => {
  it("without cgroups, wrapCommand runs the call under prlimit: RLIMIT_AS refuses the allocation, limitHit cannot tell", async () => {
    const none = { by: "none", value: null } as const;
    const rlimitHost: SandboxHost = {
      ...host,
      kill: "pid-namespace",
      limits: { memory: { by: "rlimit", value: 256 }, pids: { by: "rlimit", value: 64 }, cpu: none },
      cgroups: { ...host.cgroups, own: { unified: null, memory: null, pids: null, cpu: null, freezer: null } },
    };
    const cgroup = await CallCgroup.create(rlimitHost, "rlimit-call", { ...DEFAULT_LIMITS, memoryMb: 256, pids: 64 });
    expect(cgroup.wrapCommand({ command: "/x", args: ["a"] })).toEqual({ command: "/usr/bin/prlimit", args: [`--as=${256 * 1024 * 1024}`, "--nproc=64", "--", "/x", "a"] });
    const fixture = makeConsoleFixture(dirs);
    const run = await runSandboxed({
      host: rlimitHost,
      limits: { ...DEFAULT_LIMITS, memoryMb: 256, pids: 64 },
      request: {
        command: "/usr/bin/python3",
        args: ["-c", 'import resource\nprint(resource.getrlimit(resource.RLIMIT_AS)[0] >> 20, resource.getrlimit(resource.RLIMIT_NPROC)[0])\ntry:\n    data = b"x" * (1 << 30)\nexcept MemoryError:\n    print("MemoryError")'],
        cwd: fixture.skill,
        env: {},
        binds: [{ path: fixture.skill, target: fixture.skill }],
        declaration: declare(),
        hiddenPaths: [fixture.console],
        home: HOME,
      },
    });
    expect(run.outcome).toMatchObject({ end: "exited", exitCode: 0, stdout: "256 64\nMemoryError\n" });
    expect(run.limitHit).toBeNull();
    await cgroup.remove();
  });
});

describe("sandbox limits: leftovers of a worker killed with -9", () => {
  it("sweepStaleCgroups kills what a dead run's cgroups still hold, removes them, and spares live runs", async () => {
    const marker = `sleep 1000.${uniqueMarker()}`;
    // A run folder named after a pid above any pid_max: its worker is certainly gone.
    const deadRun = { ...host, cgroups: { ...host.cgroups, run: "run-4194400-1" } };
    const stale = await CallCgroup.create(deadRun, "stale-call", DEFAULT_LIMITS);
    const live = await CallCgroup.create(host, "live-call", DEFAULT_LIMITS);
    try {
      const wrapped = stale.wrapCommand({ command: "/usr/bin/setsid", args: ["/bin/sh", "-c", 'exec sleep "$1"', "sh", marker.slice("sleep ".length)] });
      const outcome = await startProcess(
        { ...wrapped, cwd: "/", env: {}, stdin: "", timeoutMs: 5000, killGraceMs: 100, exitDrainMs: 50, stdoutLimitBytes: 100, stderrLimitBytes: 1000 },
        { onStderrLine: () => undefined },
      ).done;
      // setsid forks when it leads its group already: the sleep runs on in its own session.
      expect(outcome).toMatchObject({ end: "exited", exitCode: 0 });
      expect((await processesWith(marker)).length).toBe(1);

      expect(await sweepStaleCgroups(host, TEST_CGROUP_NAME)).toBe(1);
      expect(await processesWith(marker)).toEqual([]);
      for (const dir of Object.values(stale.dirs)) if (dir !== null) expect(existsSync(path.dirname(dir)), dir).toBe(false);
      for (const dir of Object.values(live.dirs)) if (dir !== null) expect(existsSync(dir), dir).toBe(true);
      expect(await sweepStaleCgroups(host, TEST_CGROUP_NAME)).toBe(0);
    } finally {
      await stale.remove();
      await live.remove();
    }
  });
});

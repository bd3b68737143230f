import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CallCgroup, buildSandboxedCommand, releaseCgroupRun, type SandboxHost } from "@/lib/server/executor/sandbox";
import {
  DEFAULT_LIMITS,
  HOME,
  declare,
  detectTestHost,
  makeConsoleFixture,
  processesWith,
  removeLeftCgroups,
  removeTempDirs,
  runSandboxed,
  uniqueMarker,
  waitUntil,
} from "./sandbox-fixtures";

const dirs: string[] = [];
const markers: string[] = [];

afterEach(async () => {
  await removeLeftCgroups();
  // Safety net only: each test asserts its processes are gone; this keeps a failure from leaking sleeps.
  for (const marker of markers.splice(0)) for (const pid of await processesWith(marker)) process.kill(pid, "SIGKILL");
  removeTempDirs(dirs);
});

// Both ways this machine can kill a call: the v1 freezer (what a worker chooses here: every limit is
// a v1 one, and a v1 join takes no global lock) and cgroup.kill (what it chooses where a limit is v2).
describe.each([
  { kill: "cgroup-v1-freezer" as const, preferKill: undefined },
  { kill: "cgroup-v2" as const, preferKill: "cgroup-v2" as const },
])("killed by $kill", ({ kill, preferKill }) => {
let host: SandboxHost;

beforeAll(async () => {
  host = await detectTestHost(undefined, preferKill);
  expect(host.kill).toBe(kill);
});
afterAll(async () => {
  await releaseCgroupRun(host);
});

/**
 * Starts three escapees that a process-group signal cannot reach — a new session (setsid), a double
 * fork, and nohup — each `sleep 1000.<marker>`, says "ready" once all three run, then `ending`:
 * "exit" (exits at once), "hang" (sleeps in the foreground until killed). The marker comes in as $M,
 * so only the sleeps' own command lines hold `sleep 1000.<marker>`.
 */
function escapeScript(ending: "exit" | "hang"): string {
  return `setsid sleep 1000.$M &
( sleep 1000.$M & ) &
nohup sleep 1000.$M > /dev/null 2>&1 &
while [ "$(pgrep -c -f "^sleep 1000\\.$M\\$")" -lt 3 ]; do sleep 0.01; done
echo ready >&2
${ending === "exit" ? "exit 0" : "while :; do sleep 0.05; done"}
`;
}

async function runEscapees(ending: "exit" | "hang", options: { hostPids: boolean; timeoutMs?: number; cancelOnReady?: boolean; withContainment?: boolean }) {
  const marker = uniqueMarker();
  markers.push(`sleep 1000.${marker}`);
  const fixture = makeConsoleFixture(dirs);
  const run = await runSandboxed({
    host,
    request: {
      command: "/bin/sh",
      args: ["-c", escapeScript(ending)],
      cwd: fixture.skill,
      env: { PATH: "/usr/bin:/bin", M: marker },
      binds: [{ path: fixture.skill, target: fixture.skill }],
      declaration: declare({ hostPids: options.hostPids }),
      hiddenPaths: [fixture.console],
      home: HOME,
    },
    timeoutMs: options.timeoutMs ?? 10_000,
    withContainment: options.withContainment ?? true,
    watch: `sleep 1000.${marker}`,
    onLine: (line, running) => {
      if (line === "ready" && options.cancelOnReady) running.cancel();
    },
  });
  return { run, marker: `sleep 1000.${marker}` };
}

/** The escapees are gone: polled until `ps` shows none (a deadline, not a fixed sleep), then asserted. */
async function expectNoneLeft(marker: string): Promise<void> {
  await waitUntil(async () => (await processesWith(marker)).length === 0, `the sleeps of ${marker} to end`, 3000).catch(() => undefined);
  expect(await processesWith(marker)).toEqual([]);
}

describe.each([false, true])("sandbox containment (host_pids %s)", (hostPids) => {
  it("a call that exits leaves none of its setsid, double-forked or nohup children behind", async () => {
    const { run, marker } = await runEscapees("exit", { hostPids });
    expect(run.lines).toEqual(["ready"]);
    expect(run.outcome).toMatchObject({ end: "exited", exitCode: 0, error: null });
    // Gone when the run ends, before remove() could kill anything.
    expect(run.leftAfterRun).toEqual([]);
    expect(await processesWith(marker)).toEqual([]);
  });

  it("a call that times out leaves nothing behind", async () => {
    const { run, marker } = await runEscapees("hang", { hostPids, timeoutMs: 1500 });
    expect(run.lines).toEqual(["ready"]);
    expect(run.outcome).toMatchObject({ end: "timed_out", error: null });
    // Gone when the run ends, before remove() could kill anything.
    expect(run.leftAfterRun).toEqual([]);
    expect(await processesWith(marker)).toEqual([]);
  });

  it("a cancelled call leaves nothing behind", async () => {
    const { run, marker } = await runEscapees("hang", { hostPids, cancelOnReady: true });
    expect(run.lines).toEqual(["ready"]);
    expect(run.outcome).toMatchObject({ end: "cancelled", error: null });
    // Gone when the run ends, before remove() could kill anything.
    expect(run.leftAfterRun).toEqual([]);
    expect(await processesWith(marker)).toEqual([]);
  });
});

describe("sandbox containment: what the cgroup is for", () => {
  it("with host_pids and no containment, the setsid child outlives the call (the cgroup still holds it)", async () => {
    const { run, marker } = await runEscapees("exit", { hostPids: true, withContainment: false });
    expect(run.outcome).toMatchObject({ end: "exited", exitCode: 0 });
    expect(run.leftAfterRun.length).toBeGreaterThanOrEqual(1);
    expect((await processesWith(marker)).length).toBeGreaterThanOrEqual(1);
    await removeLeftCgroups();
    await expectNoneLeft(marker);
  });

  it("refuses host_pids on a host that has no cgroup to kill with", () => {
    const fixture = makeConsoleFixture(dirs);
    const request = { command: "/bin/true", args: [], cwd: "/", env: {}, binds: [], declaration: declare({ hostPids: true }), hiddenPaths: [fixture.console], home: HOME, allowedRoots: null };
    expect(() => buildSandboxedCommand({ ...host, kill: "pid-namespace" }, request)).toThrow(
      "sandbox.host_pids needs a cgroup to contain the call's processes, and this worker has none (kill: pid-namespace)",
    );
    expect(() => buildSandboxedCommand({ ...host, dropsPrivileges: false }, request)).toThrow("sandbox.host_pids needs the sandbox to run as another uid than the worker");
  });

  it("accounts bwrap itself and every descendant in the call's cgroups", async () => {
    const marker = `sleep 1000.${uniqueMarker()}`;
    markers.push(marker);
    const fixture = makeConsoleFixture(dirs);
    let members: { memory: string; killer: string; direct: number } | null = null;
    const run = await runSandboxed({
      host,
      request: {
        command: "/bin/sh",
        args: ["-c", 'sleep "$M" & echo ready >&2; wait'],
        cwd: fixture.skill,
        env: { PATH: "/usr/bin:/bin", M: marker.slice("sleep ".length) },
        binds: [{ path: fixture.skill, target: fixture.skill }],
        declaration: declare(),
        hiddenPaths: [fixture.console],
        home: HOME,
      },
      onLine: (line, running, cgroup: CallCgroup) => {
        if (line !== "ready") return;
        const read = (dir: string | null) => readFileSync(path.join(dir ?? "/nonexistent", "cgroup.procs"), "utf8");
        members = { memory: read(cgroup.dirs.memory), killer: read(kill === "cgroup-v2" ? cgroup.dirs.unified : cgroup.dirs.freezer), direct: running.pid ?? -1 };
        running.cancel();
      },
    });
    expect(run.outcome.end).toBe("cancelled");
    expect(members).not.toBeNull();
    const { memory, killer, direct } = members as unknown as { memory: string; killer: string; direct: number };
    const sleeper = (await processesWith(marker)).length;
    expect(sleeper).toBe(0);
    const memoryPids = memory.trim().split("\n").map(Number);
    // The outer bwrap (the spawned child after sh → setpriv → bwrap exec), its reaper, the skill's sh and the sleep.
    expect(memoryPids).toContain(direct);
    expect(memoryPids.length).toBe(4);
    expect(killer.trim().split("\n").map(Number).sort()).toEqual([...memoryPids].sort());
  });

  it("terminate() gives the skill its SIGTERM grace: bwrap is spared the TERM that would make it SIGKILL the skill", async () => {
    for (const hostPids of [false, true]) {
      const fixture = makeConsoleFixture(dirs);
      let terminated: Promise<{ remaining: number[] }> | null = null;
      const run = await runSandboxed({
        host,
        request: {
          command: "/bin/sh",
          args: ["-c", "trap 'echo got TERM >&2; exit 7' TERM; echo ready >&2; while :; do sleep 0.05; done"],
          cwd: fixture.skill,
          env: { PATH: "/usr/bin:/bin" },
          binds: [{ path: fixture.skill, target: fixture.skill }],
          declaration: declare({ hostPids }),
          hiddenPaths: [fixture.console],
          home: HOME,
        },
        onLine: (line, _running, cgroup) => {
          if (line === "ready") terminated = cgroup.containment().terminate(2000);
        },
      });
      expect(run.outcome, `host_pids ${hostPids}`).toMatchObject({ end: "exited", exitCode: 7, signal: null });
      expect(run.lines).toContain("got TERM");
      expect(await terminated).toEqual({ remaining: [] });
    }
  });

  it("the wrapped command joins each v1 hierarchy by thread (tasks, 0) and the v2 one by cgroup.procs, and gets exactly its environment", async () => {
    const cgroup = await CallCgroup.create(host, `wrap-${process.pid}`, DEFAULT_LIMITS);
    const { spawn } = await import("node:child_process");
    try {
      const wrapped = cgroup.wrapCommand({ command: "/bin/sh", args: ["-c", 'cat /proc/self/cgroup; echo ---; env | grep -v "^PWD=" | sort; echo ---; sleep 5 & echo "$!"; wait'] });
      const v1 = [cgroup.dirs.memory, cgroup.dirs.pids, cgroup.dirs.freezer].filter((dir): dir is string => dir !== null);
      const files = wrapped.args.slice(3, wrapped.args.indexOf("--"));
      expect(files).toEqual([...v1.map((dir) => path.join(dir, "tasks")), ...(kill === "cgroup-v2" ? [path.join(cgroup.dirs.unified!, "cgroup.procs")] : [])]);
      // `f` and `id` are names a join script could have set: the command must see the values given.
      const child = spawn(wrapped.command, wrapped.args, { stdio: ["ignore", "pipe", "inherit"], env: { PATH: "/usr/bin:/bin", f: "given", id: "given" } as unknown as NodeJS.ProcessEnv });
      let out = "";
      child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
      await waitUntil(async () => /---\n[\s\S]*---\n\d+\n$/.test(out), "the child's report", 5000);
      const [memberships, environment, sleeper] = out.split("---\n");
      expect(environment).toBe("PATH=/usr/bin:/bin\nf=given\nid=given\n");
      const suffix = `/${host.cgroups.name}/${host.cgroups.run}/wrap-${process.pid}`;
      const lines = memberships!.trim().split("\n");
      for (const controller of ["memory", "pids", "freezer"].filter((name) => cgroup.dirs[name as "memory" | "pids" | "freezer"] !== null)) {
        expect(lines.find((line) => line.split(":")[1]!.split(",").includes(controller))).toMatch(new RegExp(`${suffix}$`));
      }
      expect(lines.find((line) => line.startsWith("0::"))!.endsWith(suffix)).toBe(kill === "cgroup-v2");
      // A process the skill forks is in the same cgroups (the whole process moved, not just a thread of it).
      const forked = Number(sleeper!.trim());
      for (const dir of v1) expect(readFileSync(path.join(dir, "cgroup.procs"), "utf8").trim().split("\n").map(Number)).toEqual(expect.arrayContaining([child.pid, forked]));
      child.kill("SIGKILL");
      process.kill(forked, "SIGKILL");
      await new Promise((resolve) => child.once("exit", resolve));
    } finally {
      await cgroup.remove();
    }
  });

  it.runIf(kill === "cgroup-v2")("joined() resolves when the wrapped process is in every cgroup, the v2 one joined last, without polling", async () => {
    const cgroup = await CallCgroup.create(host, `joined-${process.pid}`, DEFAULT_LIMITS);
    const { spawn } = await import("node:child_process");
    try {
      const wrapped = cgroup.wrapCommand({ command: "/bin/sleep", args: ["5"] });
      // The script joins the v1 cgroups first and the v2 one last: populated there means all are joined.
      const files = wrapped.args.slice(3, wrapped.args.indexOf("--"));
      expect(files.at(-1)).toBe(path.join(cgroup.dirs.unified!, "cgroup.procs"));
      let joined = false;
      const waiting = cgroup.joined(5_000).then(() => (joined = true));
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(joined).toBe(false);
      const child = spawn(wrapped.command, wrapped.args, { stdio: "ignore" });
      const started = performance.now();
      await waiting;
      // Resolved by the join, not by the 5 s timeout.
      expect(performance.now() - started).toBeLessThan(4_000);
      for (const dir of [cgroup.dirs.unified, cgroup.dirs.memory, cgroup.dirs.pids]) {
        if (dir !== null) expect(readFileSync(path.join(dir, "cgroup.procs"), "utf8").trim().split("\n").map(Number)).toContain(child.pid);
      }
      child.kill("SIGKILL");
      await new Promise((resolve) => child.once("exit", resolve));
    } finally {
      await cgroup.remove();
    }
  });

  it("a call cgroup name cannot be reused while it exists, nor be a path", async () => {
    const cgroup = await CallCgroup.create(host, `reuse-${process.pid}`, DEFAULT_LIMITS);
    try {
      await expect(CallCgroup.create(host, `reuse-${process.pid}`, DEFAULT_LIMITS)).rejects.toThrow("EEXIST");
    } finally {
      await cgroup.remove();
    }
    await expect(CallCgroup.create(host, "../escape", DEFAULT_LIMITS)).rejects.toThrow("callId must be 1-128 letters, digits, _ or -");
  });
});
});

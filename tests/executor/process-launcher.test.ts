import { closeSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { LauncherPool, launchProcess, ProcessLauncher, type ProcessSpec } from "@/lib/server/executor";
import { openBindFd } from "@/lib/server/executor/sandbox/bind-fd";
import { isAlive, makeTempDir, specFor, waitForPid, waitUntil } from "./helpers";

const launchers: Array<ProcessLauncher | LauncherPool> = [];

afterEach(async () => {
  for (const launcher of launchers.splice(0)) await launcher.close();
});

function newLauncher(onLost?: (reason: string) => void): ProcessLauncher {
  const launcher = new ProcessLauncher(onLost);
  launchers.push(launcher);
  return launcher;
}

async function runVia(launcher: ProcessLauncher, spec: ProcessSpec) {
  const lines: string[] = [];
  const spawns: number[] = [];
  const running = await launchProcess(launcher, spec, { onStderrLine: (line) => lines.push(line), onSpawn: ({ pid }) => spawns.push(pid) });
  return { running, lines, spawns, outcome: await running.done };
}

const sh = (dir: string, script: string, overrides: Partial<ProcessSpec> = {}) => specFor(dir, { command: "/bin/sh", args: ["-c", script], ...overrides });

describe("ProcessLauncher (the worker's forks, made in a small process of their own)", () => {
  it("runs a child with its stdin, stdout, stderr lines and exit code, forked by the launcher, not by this process", async () => {
    const dir = makeTempDir();
    const launcher = newLauncher();
    const { running, lines, spawns, outcome } = await runVia(launcher, sh(dir, 'read x; echo "out:$x"; echo "parent:$PPID" >&2; echo two >&2; exit 3', { stdin: "hello\n" }));
    expect(outcome).toMatchObject({ end: "exited", exitCode: 3, signal: null, stdout: "out:hello\n", error: null });
    expect(lines).toEqual([`parent:${launcher.pid}`, "two"]);
    expect(launcher.pid).not.toBe(process.pid);
    expect(spawns).toEqual([running.pid]);
    expect(running.pgid).toBe(running.pid);
  });

  it("loses nothing of a child that writes more than a pipe holds and exits at once", async () => {
    const dir = makeTempDir();
    const launcher = newLauncher();
    const { outcome, lines } = await runVia(launcher, sh(dir, "head -c 300000 /dev/zero | tr '\\0' a; echo last >&2", { stdoutLimitBytes: 1 << 20 }));
    expect(outcome.stdout.length).toBe(300_000);
    expect(outcome.stdout).toBe("a".repeat(300_000));
    expect(lines).toEqual(["last"]);
  });

  it("forwards at most each stream's limit and the chunk that crosses it, and reads the rest to the child's end", async () => {
    const dir = makeTempDir();
    const launcher = newLauncher();
    await runVia(launcher, sh(dir, "true"));
    // What crosses the channel, counted on it (the launcher's process is private to the class).
    const forwarded = { stdout: 0, stderr: 0 };
    (launcher as unknown as { child: import("node:child_process").ChildProcess }).child.on("message", (message: { type: string; stream: "stdout" | "stderr"; data: string }) => {
      if (message.type === "output") forwarded[message.stream] += Buffer.from(message.data, "base64").length;
    });
    // 20 MiB of stderr then a result: the child is never blocked on a full pipe, and the result comes through.
    const flood = await runVia(launcher, sh(dir, "head -c 20971520 /dev/zero | tr '\\0' e >&2; echo done", { stderrLimitBytes: 65_536, stdoutLimitBytes: 1 << 20, timeoutMs: 20_000 }));
    expect(flood.outcome).toMatchObject({ end: "exited", exitCode: 0, stdout: "done\n" });
    expect(forwarded.stderr).toBeGreaterThan(65_536);
    expect(forwarded.stderr).toBeLessThanOrEqual(65_536 + 65_536);
    // Past the stdout limit the call ends as an overflow, whatever the launcher dropped meanwhile.
    const overflow = await runVia(launcher, sh(dir, "head -c 20971520 /dev/zero | tr '\\0' o", { stdoutLimitBytes: 100_000, timeoutMs: 20_000 }));
    expect(overflow.outcome.end).toBe("stdout_overflow");
    expect(forwarded.stdout).toBeLessThanOrEqual(100_000 + 65_536 + "done\n".length);
  });

  it("closes a child's pipes once the run is over: a process that left the group and writes later gets EPIPE", async () => {
    const dir = makeTempDir();
    const pidFile = path.join(dir, "daemon.pid");
    const marker = path.join(dir, "epipe");
    const launcher = newLauncher();
    const script = `setsid sh -c 'trap "" PIPE; echo $$ > ${pidFile}; sleep 1; echo late >&2 || touch ${marker}; sleep 30' & sleep 0.2`;
    const { outcome, lines } = await runVia(launcher, sh(dir, script, { exitDrainMs: 100 }));
    expect(outcome.end).toBe("exited");
    const daemon = await waitForPid(pidFile);
    try {
      await waitUntil(() => existsSync(marker), "the daemon's late write to fail with EPIPE", 5000);
      expect(lines).toEqual([]);
    } finally {
      process.kill(daemon, "SIGKILL");
    }
  });

  it("keeps 24 children started at once apart", async () => {
    const dir = makeTempDir();
    const launcher = newLauncher();
    const results = await Promise.all(Array.from({ length: 24 }, (_, index) => runVia(launcher, sh(dir, `read x; echo "$x"; echo "e$x" >&2; exit ${index % 7}`, { stdin: `n${index}\n` }))));
    expect(results.map((result) => [result.outcome.stdout, result.lines, result.outcome.exitCode])).toEqual(Array.from({ length: 24 }, (_, index) => [`n${index}\n`, [`en${index}`], index % 7]));
  });

  it("reports a program that cannot start as spawn_failed with the errno reason", async () => {
    const dir = makeTempDir();
    const { running, outcome } = await runVia(newLauncher(), specFor(dir, { command: path.join(dir, "missing") }));
    expect(running.pid).toBeNull();
    expect(outcome).toMatchObject({ end: "spawn_failed", exitCode: null, error: `cannot start ${path.join(dir, "missing")}: no such file, or its #! interpreter is missing (ENOENT)` });
  });

  it("passes this process's descriptors on as fd 3, 4, …: the very folders opened here, whatever happened to their paths since", async () => {
    const dir = makeTempDir();
    mkdirSync(path.join(dir, "approved"));
    writeFileSync(path.join(dir, "approved", "which"), "approved\n");
    mkdirSync(path.join(dir, "other"));
    writeFileSync(path.join(dir, "other", "which"), "other\n");
    const first = openBindFd(path.join(dir, "approved"));
    const second = openBindFd(path.join(dir, "other"));
    // The path is swapped after the descriptor was opened (and checked): the child must still see the first folder.
    renameSync(path.join(dir, "approved"), path.join(dir, "moved-away"));
    mkdirSync(path.join(dir, "approved"));
    writeFileSync(path.join(dir, "approved", "which"), "swapped\n");
    try {
      const { outcome } = await runVia(newLauncher(), sh(dir, "cat /proc/self/fd/3/which /proc/self/fd/4/which; ls /proc/$$/fd", { extraFds: [first, second] }));
      expect(outcome.stdout).toBe("approved\nother\n0\n1\n2\n3\n4\n");
    } finally {
      closeSync(first);
      closeSync(second);
    }
  });

  it("gives a child no descriptor of the launcher's (its channel to the worker above all)", async () => {
    const dir = makeTempDir();
    // No pipeline: sh holds a pipe's end of its own while it starts the pipeline's second command.
    const { outcome } = await runVia(newLauncher(), sh(dir, "ls /proc/$$/fd"));
    expect(outcome.stdout).toBe("0\n1\n2\n");
  });

  it("ignores SIGTERM and SIGINT (the worker's process group may get them) and keeps launching", async () => {
    const dir = makeTempDir();
    const launcher = newLauncher();
    await runVia(launcher, sh(dir, "true"));
    const pid = launcher.pid!;
    process.kill(pid, "SIGTERM");
    process.kill(pid, "SIGINT");
    const { outcome } = await runVia(launcher, sh(dir, "echo still"));
    expect(outcome.stdout).toBe("still\n");
    expect(launcher.pid).toBe(pid);
  });

  it("when the launcher dies mid-run: says so, the run ends with its group gone, and the next launch starts a new launcher", async () => {
    const dir = makeTempDir();
    const lost: string[] = [];
    const launcher = newLauncher((reason) => lost.push(reason));
    const pidFile = path.join(dir, "sleeper.pid");
    const running = await launchProcess(launcher, sh(dir, `sleep 30 & echo $! > ${pidFile}; wait`), { onStderrLine: () => undefined });
    const sleeper = await waitForPid(pidFile);
    const first = launcher.pid!;
    process.kill(first, "SIGKILL");
    const outcome = await running.done;
    expect(lost).toEqual(["the worker's process launcher stopped (it exited with SIGKILL)"]);
    expect(outcome).toMatchObject({ exitCode: null, signal: null, error: null });
    expect(isAlive(sleeper)).toBe(false);
    const { outcome: next } = await runVia(launcher, sh(dir, "echo again"));
    expect(next.stdout).toBe("again\n");
    expect(launcher.pid).not.toBe(first);
  });

  it("close(): the launcher kills the process groups it still runs and exits", async () => {
    const dir = makeTempDir();
    const launcher = newLauncher();
    const pidFile = path.join(dir, "sleeper.pid");
    const running = await launchProcess(launcher, sh(dir, `sleep 30 & echo $! > ${pidFile}; wait`), { onStderrLine: () => undefined });
    const sleeper = await waitForPid(pidFile);
    const pid = launcher.pid!;
    await launcher.close();
    await waitUntil(() => !isAlive(sleeper) && !isAlive(pid), "the launcher and its child to be gone");
    expect(readFileSync(pidFile, "utf8").trim()).toBe(String(sleeper));
    await running.done;
  });
});

describe("LauncherPool (two launchers fork in parallel)", () => {
  it("spreads spawns made at once over its launchers, and a launcher that dies stops only its own children", async () => {
    const dir = makeTempDir();
    const lost: Array<{ reason: string; pids: number[] }> = [];
    const pool = new LauncherPool(2, (reason, pids) => lost.push({ reason, pids }));
    launchers.push(pool);
    pool.start();
    await waitUntil(() => pool.pids.length === 2, "both launchers to run");
    const [first, second] = pool.pids;
    const pidFiles = Array.from({ length: 6 }, (_, index) => path.join(dir, `sleeper${index}.pid`));
    const runs = await Promise.all(pidFiles.map((file) => launchProcess(pool, sh(dir, `echo $PPID > ${file}; sleep 30`), { onStderrLine: () => undefined })));
    await Promise.all(pidFiles.map((file) => waitForPid(file)));
    const parents = pidFiles.map((file) => readFileSync(file, "utf8").trim());
    expect(new Set(parents)).toEqual(new Set([String(first), String(second)]));
    const ofFirst = runs.filter((_, index) => parents[index] === String(first));
    process.kill(first!, "SIGKILL");
    await waitUntil(() => lost.length === 1, "the dead launcher to be reported");
    expect(lost[0]!.reason).toBe("the worker's process launcher stopped (it exited with SIGKILL)");
    expect(new Set(lost[0]!.pids)).toEqual(new Set(ofFirst.map((run) => run.pid)));
    for (const run of runs) run.cancel();
    await Promise.all(runs.map((run) => run.done));
    const { outcome } = await runVia(pool as unknown as ProcessLauncher, sh(dir, "echo again"));
    expect(outcome.stdout).toBe("again\n");
  });

  it("hurry(ms): a spawn its launcher does not answer fails within ms, naming the launcher, which is killed", async () => {
    const dir = makeTempDir();
    const pool = new LauncherPool(1);
    launchers.push(pool);
    pool.start();
    await waitUntil(() => pool.pids.length === 1, "the launcher to run");
    const [pid] = pool.pids;
    process.kill(pid!, "SIGSTOP");
    try {
      const started = performance.now();
      const launching = launchProcess(pool, sh(dir, "echo never"), { onStderrLine: () => undefined });
      pool.hurry(300);
      const outcome = await (await launching).done;
      expect(performance.now() - started).toBeLessThan(3_000);
      expect(outcome.end).toBe("spawn_failed");
      expect(outcome.error).toBe("cannot start /bin/sh: the process launcher did not answer within 0.3 s; it was stopped");
      await waitUntil(() => !isAlive(pid!), "the hung launcher to be killed");
    } finally {
      if (isAlive(pid!)) process.kill(pid!, "SIGCONT");
    }
  });
});

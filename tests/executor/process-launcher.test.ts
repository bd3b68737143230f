import { closeSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { launchProcess, ProcessLauncher, type ProcessSpec } from "@/lib/server/executor";
import { openBindFd } from "@/lib/server/executor/sandbox/bind-fd";
import { isAlive, makeTempDir, specFor, waitForPid, waitUntil } from "./helpers";

const launchers: ProcessLauncher[] = [];

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
      const { outcome } = await runVia(newLauncher(), sh(dir, "cat /proc/self/fd/3/which /proc/self/fd/4/which; ls /proc/$$/fd | tr '\\n' ' '", { extraFds: [first, second] }));
      expect(outcome.stdout).toBe("approved\nother\n0 1 2 3 4 ");
    } finally {
      closeSync(first);
      closeSync(second);
    }
  });

  it("gives a child no descriptor of the launcher's (its channel to the worker above all)", async () => {
    const dir = makeTempDir();
    const { outcome } = await runVia(newLauncher(), sh(dir, "ls /proc/$$/fd | tr '\\n' ' '"));
    expect(outcome.stdout).toBe("0 1 2 ");
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

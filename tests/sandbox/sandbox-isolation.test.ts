import { readFileSync } from "node:fs";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { releaseCgroupRun, type SandboxHost } from "@/lib/server/executor/sandbox";
import { HOME, declare, detectTestHost, makeConsoleFixture, removeTempDirs, runSandboxed, stdoutLines, uniqueMarker } from "./sandbox-fixtures";

let host: SandboxHost;
const dirs: string[] = [];
const marker = `parent-env-${uniqueMarker()}`;

beforeAll(async () => {
  // The test process's own environment: none of it may be readable inside a sandbox.
  process.env.SANDBOX_TEST_MARKER = marker;
  host = await detectTestHost();
});
afterEach(() => removeTempDirs(dirs));
afterAll(async () => {
  delete process.env.SANDBOX_TEST_MARKER;
  await releaseCgroupRun(host);
});

/** Runs `script` with sh in a sandbox whose only bind is a fresh skill folder. */
async function runScript(script: string, overrides: { hostPids?: boolean; network?: boolean; env?: Record<string, string> } = {}) {
  const fixture = makeConsoleFixture(dirs);
  const run = await runSandboxed({
    host,
    request: {
      command: "/bin/sh",
      args: ["-c", script],
      cwd: fixture.skill,
      env: { PATH: "/usr/bin:/bin", ...overrides.env },
      binds: [{ path: fixture.skill, target: fixture.skill }],
      declaration: declare({ hostPids: overrides.hostPids ?? false, network: overrides.network ?? true }),
      hiddenPaths: [fixture.console, "/root", "/home"],
      home: HOME,
    },
  });
  return { ...run, skill: fixture.skill };
}

/** Interface names of a /proc/net/dev text. */
function interfaces(procNetDev: string): string[] {
  return procNetDev
    .split("\n")
    .slice(2)
    .map((line) => line.split(":")[0]?.trim() ?? "")
    .filter((name) => name !== "")
    .sort();
}

describe("sandbox isolation: environment", () => {
  it("leaves nothing of the parent's environment in any readable /proc/*/environ; PID 1's holds only what the skill was given", async () => {
    const run = await runScript(
      `printf 'pid1=%s\\n' "$(tr '\\0' ' ' < /proc/1/environ)"
for f in /proc/[0-9]*/environ; do cat "$f" 2>/dev/null | tr '\\0' '\\n'; done
echo readable=$(for f in /proc/[0-9]*/environ; do cat "$f" >/dev/null 2>&1 && echo "$f"; done | wc -l)`,
      { env: { SKILL_VISIBLE: "given-to-the-skill" } },
    );
    expect(run.outcome).toMatchObject({ end: "exited", exitCode: 0 });
    expect(run.outcome.stdout).not.toContain(marker);
    const lines = stdoutLines(run);
    // bwrap got the skill's environment as its own (never as arguments, which every process of the host can read).
    expect(new Set(lines[0]!.slice("pid1=".length).trim().split(" "))).toEqual(new Set(["PATH=/usr/bin:/bin", "SKILL_VISIBLE=given-to-the-skill"]));
    // Every environment in the sandbox is the one the request gave (PWD: the skill's sh exports it to cat).
    expect(new Set(lines.slice(1, -1))).toEqual(new Set(["PATH=/usr/bin:/bin", "SKILL_VISIBLE=given-to-the-skill", `PWD=${run.skill}`]));
    // PID 1, the sh, and the cat reading itself at least.
    expect(Number(lines.at(-1)?.split("=")[1])).toBeGreaterThanOrEqual(3);
  });

  it("with host_pids: the test process is visible but its environ is unreadable (EACCES) and it cannot be signalled (EPERM)", async () => {
    const run = await runScript(
      `test -r /proc/${process.pid}/stat && echo visible=yes
cat /proc/${process.pid}/environ > /dev/null 2> /tmp/err; echo "environ=$(sed 's/.*: //' /tmp/err)"
kill -TERM ${process.pid} 2> /tmp/err; echo "kill=$? $(sed 's/.*: //' /tmp/err)"
python3 -c 'import os
try:
    os.kill(${process.pid}, 15)
except OSError as e:
    print("errno=" + __import__("errno").errorcode[e.errno])'`,
      { hostPids: true },
    );
    expect(run.outcome).toMatchObject({ end: "exited", exitCode: 0 });
    expect(stdoutLines(run)).toEqual(["visible=yes", "environ=Permission denied", "kill=1 Operation not permitted", "errno=EPERM"]);
    expect(run.outcome.stdout).not.toContain(marker);
  });

  it("without host_pids: only the sandbox's own processes exist", async () => {
    // echo and cd are builtins: no process is forked while the glob is read.
    const run = await runScript(`cd /proc && echo [0-9]*; test -e /proc/${process.pid}/stat && echo visible || echo hidden`);
    expect(run.outcome).toMatchObject({ end: "exited", exitCode: 0 });
    // 1 is bwrap's reaper, 2 the skill's sh.
    expect(stdoutLines(run)).toEqual(["1 2", process.pid === 1 || process.pid === 2 ? "visible" : "hidden"]);
  });
});

describe("sandbox isolation: network", () => {
  it("network false leaves only lo", async () => {
    const run = await runScript("cat /proc/net/dev", { network: false });
    expect(run.outcome).toMatchObject({ end: "exited", exitCode: 0 });
    expect(interfaces(run.outcome.stdout)).toEqual(["lo"]);
  });

  it("network true shares the host's interfaces", async () => {
    const run = await runScript("cat /proc/net/dev", { network: true });
    expect(run.outcome).toMatchObject({ end: "exited", exitCode: 0 });
    const hostInterfaces = interfaces(readFileSync("/proc/net/dev", "utf8"));
    expect(hostInterfaces.length).toBeGreaterThan(1);
    expect(interfaces(run.outcome.stdout)).toEqual(hostInterfaces);
  });
});

describe("sandbox isolation: privileges", () => {
  it("runs with no capabilities, no_new_privs, and cannot make a user namespace", async () => {
    const run = await runScript(
      `grep -E '^(CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs)' /proc/self/status | tr -s '\\t ' ' '
unshare --user true 2>/dev/null && echo userns=yes || echo userns=no`,
    );
    expect(run.outcome).toMatchObject({ end: "exited", exitCode: 0 });
    expect(stdoutLines(run)).toEqual([
      "CapInh: 0000000000000000",
      "CapPrm: 0000000000000000",
      "CapEff: 0000000000000000",
      "CapBnd: 0000000000000000",
      "CapAmb: 0000000000000000",
      "NoNewPrivs: 1",
      "userns=no",
    ]);
  });

  it("inherits no descriptor beyond stdin, stdout and stderr", async () => {
    const run = await runScript("ls /proc/self/fd | sort -n | tr '\\n' ' '");
    expect(run.outcome).toMatchObject({ end: "exited", exitCode: 0 });
    // 3 is ls's own listing of /proc/self/fd.
    expect(run.outcome.stdout.trim()).toBe("0 1 2 3");
  });
});

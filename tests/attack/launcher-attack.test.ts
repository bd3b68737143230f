/**
 * Attacks on the worker's process launcher (lib/server/executor/process-launcher.ts), run against the
 * real worker program (.worker/worker.mjs) as its own process, with bwrap, as in
 * tests/workers/worker-process.test.ts. Threat model: a hostile skill (uid 65534 in bubblewrap, with or
 * without host_pids) and a launcher that dies or stops answering. Every test asserts the secure
 * outcome: a call sees no descriptor of the launcher or the worker; setsid, double-fork and nohup
 * daemons die with the launcher AND with a worker killed -9 (the launcher kills the call's cgroup);
 * a launcher that does not answer fails the spawn after LAUNCH_ANSWER_MS and never keeps a call
 * running or the worker from exiting.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import * as cancelRoute from "@/app/api/v1/calls/[id]/cancel/route";
import { db } from "@/lib/server/db";
import { createWorkerToken } from "@/lib/server/workers/worker-tokens";
import type { Call } from "@/lib/types/call";
import { requestCall, waitForStatus } from "../api/approvals-fixtures";
import { invoke } from "../helpers/route-client";
import { setUpTestConsole, writeSkill, type TestConsole } from "../helpers/test-console";
import { testApiUrl, useOwnWorkers } from "../helpers/test-worker";
import { processesWith } from "../helpers/host-processes";

const BUNDLE = path.resolve(__dirname, "../../.worker/worker.mjs");
let testConsole: TestConsole;
const children: ChildProcess[] = [];
let workerCount = 0;

/** SIGCONT to a launcher a test stopped, if it still exists (the worker kills one that does not answer). */
function resumeIfAlive(pid: number): void {
  try {
    process.kill(pid, "SIGCONT");
  } catch {
    // Killed meanwhile.
  }
}

function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === pid) out.push(Number(name));
    } catch {
      // gone
    }
  }
  return out;
}

/** The worker's process launchers (it runs a pool of them; each call is forked by one). */
function launchersOf(worker: ChildProcess): number[] {
  return childrenOf(worker.pid!).filter((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").startsWith("skill-worker-launcher");
    } catch {
      return false; // gone
    }
  });
}

function signalAll(pids: readonly number[], signal: NodeJS.Signals): void {
  for (const pid of pids) process.kill(pid, signal);
}

async function spawnWorker(name = `w${++workerCount}`, extraEnv: Record<string, string> = {}): Promise<ChildProcess> {
  const { token } = await createWorkerToken({ email: "test@console.local", userId: null }, { name, labels: [] });
  const { DATABASE_URL: _db, CONSOLE_AUTH_SECRET: _secret, CONSOLE_ADMIN_PASSWORD: _password, ...env } = process.env;
  const child = spawn(process.execPath, [BUNDLE], {
    env: { ...env, CONSOLE_URL: await testApiUrl(), WORKER_NAME: name, WORKER_STATE_DIR: path.join(testConsole.dir, `state-${name}`), SKILL_SANDBOX: "bwrap", SKILL_KILL_GRACE_MS: "200", ...extraEnv },
    stdio: ["pipe", "pipe", "pipe"],
  });
  const output: string[] = [];
  child.stdout!.on("data", (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => output.push(chunk.toString()));
  child.stdin!.write(`${token}\n`);
  children.push(child);
  (child as ChildProcess & { output: string[] }).output = output;
  await expect.poll(() => output.join(""), { timeout: 20_000 }).toMatch(new RegExp(`worker: ${name} registered`));
  return child;
}

async function stopAllWorkers(): Promise<void> {
  for (const child of children.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    child.kill("SIGTERM");
    await Promise.race([new Promise((resolve) => child.once("exit", resolve)), new Promise((resolve) => setTimeout(resolve, 5000))]);
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
}

async function startCall(skill: string): Promise<Call> {
  const response = await requestCall(skill, { args: {}, wait: false });
  const { call } = (await response.json()) as { call: Call };
  return call;
}

async function runCall(skill: string, timeoutMs = 30_000) {
  const call = await startCall(skill);
  await waitForStatus(call.id, ["succeeded", "failed", "timed_out", "cancelled", "interrupted"], timeoutMs);
  return db().call.findUniqueOrThrow({ where: { id: call.id } });
}

const ESCAPE = (marker: string) => `setsid sleep 900.${marker} &
( sleep 900.${marker} & ) &
nohup sleep 900.${marker} > /dev/null 2>&1 &
sleep 0.3
echo ready >&2
while :; do sleep 0.05; done`;

beforeAll(async () => {
  testConsole = await setUpTestConsole({ CALL_LEASE_MS: "1500", SKILL_SANDBOX_ALLOW_PATHS: "" });
  useOwnWorkers();
  const root = testConsole.root;
  // What a skill can see of descriptors, its own and other processes'.
  writeSkill(
    root,
    "fdprobe",
    { name: "fdprobe", timeout_seconds: 20 },
    `out=$( (for f in /proc/self/fd/*; do echo "$f -> $(readlink $f)"; done; echo "--- procs with readable fd dirs:"; for p in /proc/[0-9]*; do ls $p/fd >/dev/null 2>&1 && echo "\${p#/proc/} $(cat $p/comm)"; done) 2>&1 | base64 -w0); printf '{"b":"%s"}' "$out"`,
  );
  writeSkill(
    root,
    "fdprobe_hostpids",
    { name: "fdprobe_hostpids", timeout_seconds: 20, sandbox: { host_pids: true } },
    `me=$$; out=$( (for f in /proc/self/fd/*; do echo "$f -> $(readlink $f)"; done; echo "---"; for p in /proc/[0-9]*; do n=\${p#/proc/}; ls $p/fd >/dev/null 2>&1 && echo "FD $n $(cat $p/comm) $(ls -l $p/fd 2>/dev/null | tail -n +2 | awk '{print $NF}' | tr '\\n' ' ')"; cat $p/environ >/dev/null 2>&1 && echo "ENV $n $(cat $p/comm)"; done) 2>&1 | base64 -w0); printf '{"b":"%s","me":"%s"}' "$out" "$me"`,
  );
  writeSkill(root, "victim", { name: "victim", timeout_seconds: 60 }, `export SECRET_OF_VICTIM=hunter2; exec sleep 55.4141`);
  writeSkill(root, "escape_hostpids", { name: "escape_hostpids", timeout_seconds: 120, sandbox: { host_pids: true } }, ESCAPE("$ESCAPE_MARK").replaceAll("$ESCAPE_MARK", "7171"));
  writeSkill(root, "escape_default", { name: "escape_default", timeout_seconds: 120 }, ESCAPE("7272"));
  writeSkill(root, "quick", { name: "quick" }, 'echo "{\\"ok\\": true}"');
  writeSkill(root, "long", { name: "long", timeout_seconds: 120 }, "sleep 600.7373 & wait");
  writeSkill(root, "flood_out", { name: "flood_out", timeout_seconds: 20 }, "exec cat /dev/zero");
  writeSkill(root, "flood_err", { name: "flood_err", timeout_seconds: 5 }, "yes aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa >&2");
  writeSkill(root, "closer", { name: "closer", timeout_seconds: 3 }, "exec >&- 2>&- <&-; sleep 600.7474");
  expect(fs.existsSync(BUNDLE)).toBe(true);
}, 120_000);

afterEach(async () => {
  await stopAllWorkers();
  for (const marker of ["900.7171", "900.7272", "600.7373", "600.7474", "55.4141"]) for (const pid of processesWith(marker)) try { process.kill(pid, "SIGKILL"); } catch {}
});

afterAll(async () => {
  await stopAllWorkers();
});

describe("claim 1: descriptors", () => {
  it("a call sees only its stdio in /proc/self/fd and no other process's fd dir", async () => {
    await spawnWorker();
    const row = await runCall("fdprobe");
    expect(row.status).toBe("succeeded");
    const text = Buffer.from(JSON.parse(row.result!).b, "base64").toString();
    const fdLines = (text.split("--- ")[0] ?? "").trim().split("\n");
    // 0,1,2 and the fd of the `for` glob/readlink; nothing that is a socket or a folder of the host.
    expect(fdLines.filter((line) => /^\/proc\/self\/fd\/[3-9].*socket:|anon_inode|\/(tmp|work|root)/.test(line))).toEqual([]);
  }, 60_000);

  it("a host_pids call cannot read another call's /proc/<pid>/environ or fd (cross-call isolation)", async () => {
    await spawnWorker();
    const victim = await startCall("victim");
    await waitForStatus(victim.id, ["running"]);
    await expect.poll(() => processesWith("55.4141").length, { timeout: 10_000 }).toBeGreaterThan(0);
    const victimPids = processesWith("55.4141");
    const row = await runCall("fdprobe_hostpids");
    expect(row.status).toBe("succeeded");
    const parsed = JSON.parse(row.result!);
    const text = Buffer.from(parsed.b, "base64").toString();
    // Listing fd NUMBERS of a same-uid process is possible (DAC on /proc/<pid>/fd); what must not be reachable is
    // what they name (readlink needs ptrace access) nor the environment.
    const reached = text.split("\n").filter((line) => /^ENV /.test(line) || (/^FD /.test(line) && /[:/]/.test(line.split(" ").slice(3).join(" ")))).filter((line) => victimPids.includes(Number(line.split(" ")[1])));
    expect(reached).toEqual([]);
  }, 60_000);
});

describe("claim 2: nothing of a call outlives it", () => {
  it("host_pids escapees (setsid, double fork, nohup) die when the launcher is killed -9; call interrupted; next call runs", async () => {
    const worker = await spawnWorker();
    const call = await startCall("escape_hostpids");
    await waitForStatus(call.id, ["running"]);
    await expect.poll(() => processesWith("900.7171").length, { timeout: 10_000 }).toBe(3);
    const launchers = launchersOf(worker);
    expect(launchers.length).toBeGreaterThan(0);
    signalAll(launchers, "SIGKILL");
    const status = await waitForStatus(call.id, ["interrupted", "failed", "cancelled", "succeeded", "timed_out"], 15_000);
    await expect.poll(() => processesWith("900.7171"), { timeout: 8_000 }).toEqual([]);
    expect(status).toBe("interrupted");
    const next = await runCall("quick");
    expect(next.status).toBe("succeeded");
    expect(launchersOf(worker).filter((pid) => launchers.includes(pid))).toEqual([]);
  }, 90_000);

  it("host_pids escapees die when the WORKER is killed -9 (no restart of that worker)", async () => {
    const worker = await spawnWorker();
    const call = await startCall("escape_hostpids");
    await waitForStatus(call.id, ["running"]);
    await expect.poll(() => processesWith("900.7171").length, { timeout: 10_000 }).toBe(3);
    const launchers = launchersOf(worker);
    expect(launchers.length).toBeGreaterThan(0);
    worker.kill("SIGKILL");
    const status = await waitForStatus(call.id, ["interrupted", "failed"], 15_000);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(status).toBe("interrupted");
    // The launcher killed the call's cgroup when the worker's channel closed; nothing waits for a worker of that name to start again.
    expect(processesWith("900.7171")).toEqual([]);
    expect(launchers.filter((pid) => fs.existsSync(`/proc/${pid}`))).toEqual([]);
  }, 90_000);

  it("default sandbox escapees die when the launcher is killed -9", async () => {
    const worker = await spawnWorker();
    const call = await startCall("escape_default");
    await waitForStatus(call.id, ["running"]);
    await expect.poll(() => processesWith("900.7272").length, { timeout: 10_000 }).toBe(3);
    signalAll(launchersOf(worker), "SIGKILL");
    const status = await waitForStatus(call.id, ["interrupted", "failed", "cancelled", "succeeded", "timed_out"], 15_000);
    await expect.poll(() => processesWith("900.7272"), { timeout: 8_000 }).toEqual([]);
    expect(status).toBe("interrupted");
  }, 90_000);
});

describe("claim 4: the launcher cannot hang the worker", () => {
  it("a launcher that stops answering (SIGSTOP) does not leave a call stuck running: its spawn fails after LAUNCH_ANSWER_MS, naming the launcher", async () => {
    const worker = await spawnWorker();
    expect((await runCall("quick")).status).toBe("succeeded");
    const launchers = launchersOf(worker);
    expect(launchers.length).toBeGreaterThan(0);
    signalAll(launchers, "SIGSTOP");
    try {
      const call = await startCall("long");
      await waitForStatus(call.id, ["running"], 10_000).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const cancel = await invoke(cancelRoute.POST, `/api/v1/calls/${call.id}/cancel`, { method: "POST", params: { id: call.id } });
      expect(cancel.status).toBe(200);
      let status = "?";
      try {
        status = await waitForStatus(call.id, ["cancelled", "failed", "interrupted"], 15_000);
      } catch (error) {
        status = String(error);
      }
      expect(status).toBe("failed");
      const row = await db().call.findUniqueOrThrow({ where: { id: call.id } });
      expect(row.error).toBe("cannot start /bin/sh: the process launcher did not answer within 10 s; it was stopped");
      // The launcher given the spawn was killed; gone from /proc once the worker reaped it (the others got nothing to do).
      await expect.poll(() => launchers.filter((pid) => !fs.existsSync(`/proc/${pid}`)).length, { timeout: 5_000 }).toBe(1);
    } finally {
      for (const pid of launchers) resumeIfAlive(pid);
    }
  }, 90_000);

  it("a worker told to stop (SIGTERM) while its launcher does not answer still exits and ends its call", async () => {
    const worker = await spawnWorker();
    expect((await runCall("quick")).status).toBe("succeeded");
    const launchers = launchersOf(worker);
    expect(launchers.length).toBeGreaterThan(0);
    signalAll(launchers, "SIGSTOP");
    try {
      const call = await startCall("long");
      await waitForStatus(call.id, ["running"], 10_000).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      worker.kill("SIGTERM");
      // Well before the worker's fallback exit (lib/worker/main.ts: SKILL_KILL_GRACE_MS + 10 s): a stopping
      // worker gives an unanswered spawn 1 s, and each stopped launcher LAUNCHER_CLOSE_MS to exit.
      const started = Date.now();
      const exited = await Promise.race([new Promise((resolve) => worker.once("exit", () => resolve(true))), new Promise((resolve) => setTimeout(() => resolve(false), 10_000))]);
      expect(Date.now() - started).toBeLessThan(6_000);
      expect(exited).toBe(true);
      // Killed; gone from /proc once the worker reaped it.
      await expect.poll(() => launchers.filter((pid) => fs.existsSync(`/proc/${pid}`)), { timeout: 5_000 }).toEqual([]);
    } finally {
      for (const pid of launchers) resumeIfAlive(pid);
    }
  }, 60_000);

  it("stdout flood, stderr flood and a child that closes its pipes early all end; a concurrent quick call still runs", async () => {
    await spawnWorker();
    const started = Date.now();
    const [out, err, closer, quick] = await Promise.all([runCall("flood_out"), runCall("flood_err"), runCall("closer"), runCall("quick")]);
    expect(out.status).toBe("failed");
    expect(["timed_out", "failed"]).toContain(err.status);
    expect(closer.status).toBe("timed_out");
    expect(quick.status).toBe("succeeded");
    expect(processesWith("600.7474")).toEqual([]);
  }, 90_000);

  it("many calls at once all finish", async () => {
    await spawnWorker();
    const rows = await Promise.all(Array.from({ length: 30 }, () => runCall("quick", 60_000)));
    expect(rows.map((row) => row.status)).toEqual(rows.map(() => "succeeded"));
  }, 120_000);
});

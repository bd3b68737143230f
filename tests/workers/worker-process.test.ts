/**
 * A worker is its own process (DESIGN.md "Workers and the sandbox"): the program `npm run worker` runs,
 * built into .worker/worker.mjs, with its token on stdin and no database credentials. Killed with -9 in
 * the middle of a call, the call ends `interrupted` within its lease, its process tree is gone, the
 * console keeps serving, and a restarted worker picks up new calls. A worker whose stdin closes (the
 * process that started it died) stops its calls too.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as skillsRoute from "@/app/api/v1/skills/route";
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
let markers: string;
const children: ChildProcess[] = [];

/** Starts the built worker program as its own process, its token on stdin (as scripts/worker.mjs does). */
async function spawnWorker(name: string, sandbox = "bwrap", options: { stateOf?: string; output?: string[] } = {}): Promise<ChildProcess> {
  const { token } = await createWorkerToken({ email: "test@console.local", userId: null }, { name, labels: [] });
  const { DATABASE_URL: _db, CONSOLE_AUTH_SECRET: _secret, CONSOLE_ADMIN_PASSWORD: _password, ...env } = process.env;
  const child = spawn(process.execPath, [BUNDLE], {
    env: { ...env, CONSOLE_URL: await testApiUrl(), WORKER_NAME: name, WORKER_STATE_DIR: path.join(testConsole.dir, `state-${options.stateOf ?? name}`), SKILL_SANDBOX: sandbox, SKILL_KILL_GRACE_MS: "200" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  const output = options.output ?? [];
  child.stdout!.on("data", (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => output.push(chunk.toString()));
  child.stdin!.write(`${token}\n`);
  children.push(child);
  if (options.output === undefined) await expect.poll(() => output.join(""), { timeout: 20_000 }).toMatch(new RegExp(`worker: ${name} registered`));
  return child;
}

beforeAll(async () => {
  testConsole = await setUpTestConsole({ MARKER_DIR: "", CALL_LEASE_MS: "1500", SKILL_SANDBOX_ALLOW_PATHS: "" });
  useOwnWorkers();
  markers = path.join(testConsole.dir, "markers");
  fs.mkdirSync(markers, { mode: 0o777 });
  fs.chmodSync(markers, 0o777);
  process.env.MARKER_DIR = markers;
  writeSkill(testConsole.root, "long", { name: "long", timeout_seconds: 120 }, "sleep 600.4242 & sleep 600.4242 & wait");
  writeSkill(testConsole.root, "quick", { name: "quick" }, 'echo "{\\"ok\\": true}"');
  expect(fs.existsSync(BUNDLE), "the worker bundle is built by the tests' global setup").toBe(true);
});

afterAll(() => {
  for (const child of children) child.kill("SIGKILL");
});

describe("a worker process killed with -9", () => {
  it("leaves its call interrupted within the lease with its process tree gone; the console serves on; a new worker takes new calls", async () => {
    const worker = await spawnWorker("victim");
    const { call } = (await (await requestCall("long", { args: {}, wait: false })).json()) as { call: Call };
    await waitForStatus(call.id, ["running"]);
    await expect.poll(() => processesWith("600.4242").length, { timeout: 10_000 }).toBe(2);
    await expect.poll(async () => (await db().call.findUniqueOrThrow({ where: { id: call.id } })).startedAt, { timeout: 10_000 }).not.toBeNull();

    const killedAt = Date.now();
    worker.kill("SIGKILL");
    // bwrap dies with its parent (--die-with-parent) and takes the sandbox's whole pid namespace with it.
    await expect.poll(() => processesWith("600.4242"), { timeout: 5_000 }).toEqual([]);
    expect(await waitForStatus(call.id, ["interrupted"], 10_000)).toBe("interrupted");
    const ended = await db().call.findUniqueOrThrow({ where: { id: call.id } });
    expect(ended.error).toBe("the worker victim stopped renewing its lease (it stopped, was killed or lost the console)");
    // Within its lease (1.5 s) and the sweep (every ≤ 0.5 s), not at some later start.
    expect(Date.now() - killedAt).toBeLessThan(1500 + 2500);
    expect((await invoke(skillsRoute.GET, "/api/v1/skills")).status).toBe(200);

    await spawnWorker("successor");
    const { call: next } = (await (await requestCall("quick", { args: {} })).json()) as { call: Call };
    expect(next).toMatchObject({ status: "succeeded", worker: "successor", result: { ok: true } });
    expect((await db().call.findUniqueOrThrow({ where: { id: call.id } })).status).toBe("interrupted");
  }, 60_000);

  it("stops its calls when its stdin closes (the process that started it died), and reports them interrupted", async () => {
    for (const child of children.splice(0)) {
      child.kill("SIGTERM");
      if (child.exitCode === null && child.signalCode === null) await new Promise((resolve) => child.once("exit", resolve));
    }
    const worker = await spawnWorker("orphan");
    const { call } = (await (await requestCall("long", { args: {}, wait: false })).json()) as { call: Call };
    await waitForStatus(call.id, ["running"]);
    expect((await db().call.findUniqueOrThrow({ where: { id: call.id } })).workerName).toBe("orphan");
    await expect.poll(() => processesWith("600.4242").length, { timeout: 10_000 }).toBe(2);
    worker.stdin!.end();
    expect(await waitForStatus(call.id, ["interrupted"], 10_000)).toBe("interrupted");
    expect((await db().call.findUniqueOrThrow({ where: { id: call.id } })).error).toBe("the worker stopped (the process that started it went away) while the call ran");
    await expect.poll(() => processesWith("600.4242")).toEqual([]);
    await new Promise<void>((resolve) => (worker.exitCode !== null ? resolve() : worker.once("exit", () => resolve())));
    expect(worker.exitCode).toBe(0);
  }, 60_000);
});

describe("two workers on one state folder (WORKER_STATE_DIR)", () => {
  it("the second refuses to start, naming the first, and never touches the first one's running call", async () => {
    for (const child of children.splice(0)) {
      child.kill("SIGTERM");
      if (child.exitCode === null && child.signalCode === null) await new Promise((resolve) => child.once("exit", resolve));
    }
    const holder = await spawnWorker("holder");
    const { call } = (await (await requestCall("long", { args: {}, wait: false, target: "holder" })).json()) as { call: Call };
    await waitForStatus(call.id, ["running"]);
    await expect.poll(() => processesWith("600.4242").length, { timeout: 10_000 }).toBe(2);
    const output: string[] = [];
    const intruder = await spawnWorker("intruder", "bwrap", { stateOf: "holder", output });
    await new Promise<void>((resolve) => (intruder.exitCode !== null ? resolve() : intruder.once("exit", () => resolve())));
    expect(intruder.exitCode).toBe(1);
    expect(output.join("")).toContain(
      `worker: could not start: the worker state folder ${path.join(testConsole.dir, "state-holder")} is in use by worker holder (pid ${holder.pid}); give each worker its own WORKER_STATE_DIR (e.g. WORKER_STATE_DIR=./data/worker-intruder)`,
    );
    // The holder's call and its processes are untouched.
    expect(processesWith("600.4242")).toHaveLength(2);
    expect((await db().call.findUniqueOrThrow({ where: { id: call.id } })).status).toBe("running");
    holder.kill("SIGTERM");
    expect(await waitForStatus(call.id, ["interrupted"], 10_000)).toBe("interrupted");
    await expect.poll(() => processesWith("600.4242")).toEqual([]);
  }, 60_000);
});

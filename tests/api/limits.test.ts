import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import * as callRoute from "@/app/api/v1/calls/[id]/route";
import * as skillCallsRoute from "@/app/api/v1/skills/[name]/calls/route";
import type { Call, CallWithEvents } from "@/lib/types/call";
import { isAlive, readPid } from "../executor/helpers";
import { invoke } from "../helpers/route-client";
import { setUpTestConsole, writeSkill, type TestConsole } from "../helpers/test-console";

let testConsole: TestConsole;

async function run(skill: string, body: unknown = {}): Promise<Call> {
  const response = await invoke(skillCallsRoute.POST, `/api/v1/skills/${skill}/calls`, { body, params: { name: skill } });
  return ((await response.json()) as { call: Call }).call;
}

async function fetchCall(id: string): Promise<CallWithEvents> {
  return ((await (await invoke(callRoute.GET, `/api/v1/calls/${id}`, { params: { id } })).json()) as { call: CallWithEvents }).call;
}


beforeAll(async () => {
  testConsole = await setUpTestConsole({
    SKILL_STDOUT_LIMIT_BYTES: "65536",
    SKILL_STDERR_LIMIT_BYTES: "4096",
    SKILL_MAX_CONCURRENT_CALLS: "1",
    SKILL_STDERR_LINE_LIMIT: "300",
    PIDS_DIR: "",
  });
  process.env.PIDS_DIR = testConsole.dir;
  const { root } = testConsole;
  writeSkill(root, "flood_stdout", { name: "flood_stdout" }, "exec /usr/bin/yes");
  writeSkill(root, "many_short_lines", { name: "many_short_lines" }, 'for i in $(seq 1 400); do echo "$i" >&2; done; echo \'{"done": true}\'');
  writeSkill(root, "chatty", { name: "chatty" }, 'for i in $(seq 1 500); do echo "line $i of chatter" >&2; done; echo \'{"done": true}\'');
  writeSkill(root, "stubborn", { name: "stubborn", timeout_seconds: 1, env_allow: ["PIDS_DIR"] }, [
    'trap "" TERM',
    '(trap "" TERM; echo $BASHPID > "$PIDS_DIR/stubborn-grandchild.pid"; while :; do sleep 0.1; done) &',
    'echo $$ > "$PIDS_DIR/stubborn-child.pid"',
    "while :; do sleep 0.1; done",
  ].join("\n"));
  writeSkill(root, "leaves_grandchild", { name: "leaves_grandchild", env_allow: ["PIDS_DIR"] }, [
    '(echo $BASHPID > "$PIDS_DIR/holder.pid"; exec /usr/bin/sleep 30) &',
    'echo \'{"printed": "before exit"}\'',
    "exit 0",
  ].join("\n"));
  writeSkill(root, "ignores_stdin", { name: "ignores_stdin", schema: { type: "object", properties: { blob: { type: "string" } } } }, 'echo \'{"read": false}\'');
  writeSkill(root, "quick", { name: "quick" }, 'sleep 0.3; echo \'{"quick": true}\'');
});

describe("output limits", () => {
  it("fails a call whose stdout passes SKILL_STDOUT_LIMIT_BYTES, with bounded memory", async () => {
    const call = await run("flood_stdout");
    expect(call).toMatchObject({ status: "failed", error: "stdout exceeded 65536 bytes", result: null });
  });

  it("ends the timeline with a truncation marker past SKILL_STDERR_LIMIT_BYTES and lets the call go on", async () => {
    const call = await run("chatty");
    expect(call).toMatchObject({ status: "succeeded", result: { done: true }, stderrTruncated: true });
    const { events } = await fetchCall(call.id);
    const stderr = events.filter((event) => event.stream === "stderr");
    // The kept bytes are the lines plus the newlines between them (the last one may be cut short).
    const keptBytes = stderr.reduce((sum, event) => sum + Buffer.byteLength(event.line), 0) + stderr.length - 1;
    expect(keptBytes).toBeLessThanOrEqual(4096);
    expect(keptBytes).toBeGreaterThanOrEqual(4095);
    expect(stderr.length).toBeGreaterThan(100);
    const marker = events.findIndex((event) => event.line.startsWith("stderr truncated:"));
    expect(events[marker]!.stream).toBe("system");
    expect(events.slice(marker + 1).every((event) => event.stream === "system")).toBe(true);
  });
});

describe("stderr line limit", () => {
  it("keeps SKILL_STDERR_LINE_LIMIT lines of stderr and then the truncation marker", async () => {
    const call = await run("many_short_lines");
    expect(call).toMatchObject({ status: "succeeded", stderrTruncated: true });
    const { events } = await fetchCall(call.id);
    expect(events.filter((event) => event.stream === "stderr").map((event) => event.line)).toEqual(
      Array.from({ length: 300 }, (_, index) => String(index + 1)),
    );
    expect(events.filter((event) => event.line.startsWith("stderr truncated:"))).toHaveLength(1);
  });
});

describe("process groups", () => {
  it("times out a child that ignores TERM and its grandchild: the call ends only once both are gone", async () => {
    const call = await run("stubborn");
    expect(call.status).toBe("timed_out");
    const child = readPid(path.join(testConsole.dir, "stubborn-child.pid"));
    const grandchild = readPid(path.join(testConsole.dir, "stubborn-grandchild.pid"));
    expect(isAlive(child)).toBe(false);
    expect(isAlive(grandchild)).toBe(false);
  });

  it("does not hang when the child exits while a grandchild still holds its stdout", async () => {
    const started = Date.now();
    const call = await run("leaves_grandchild");
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(call).toMatchObject({ status: "succeeded", result: { printed: "before exit" }, exitCode: 0 });
    const holder = readPid(path.join(testConsole.dir, "holder.pid"));
    expect(isAlive(holder)).toBe(false);
  });

  it("survives a child that exits without reading a large stdin", async () => {
    const call = await run("ignores_stdin", { args: { blob: "x".repeat(2 * 1024 * 1024) } });
    expect(call).toMatchObject({ status: "succeeded", result: { read: false } });
  });
});

describe("concurrency", () => {
  it("keeps calls past SKILL_MAX_CONCURRENT_CALLS queued until a slot frees", async () => {
    const first = await run("quick", { wait: false });
    const second = await run("quick", { wait: false });
    expect(second.status).toBe("queued");
    await expect.poll(async () => (await fetchCall(second.id)).status, { timeout: 5000 }).toBe("succeeded");
    const [a, b] = [await fetchCall(first.id), await fetchCall(second.id)];
    expect(new Date(b.startedAt!).getTime()).toBeGreaterThanOrEqual(new Date(a.endedAt!).getTime() - 5);
  });
});

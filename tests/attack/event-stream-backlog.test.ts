/**
 * What a call's event stream (`GET /api/v1/calls/{id}/events`) holds for a client that reads slowly or
 * not at all, found by the attack review of the streams:
 * - a client that stopped reading while the stored timeline replayed had every live line of the call
 *   queued for it outside the backlog bound (+30 MiB for one stream of a chatty call, +80 MiB for 16);
 * - a replay queued a page of 2,000 stored lines at once: 100 lines of 60,000 control characters (each
 *   escaped to six in JSON) made one page ~36 MB, past the 8 MiB bound, so the stream was dropped before
 *   its first line, on every reconnect: such a call could never be streamed.
 * Real skills, worker, routes behind the production router, real sockets. Engine-independent (SQLite only).
 */
import net from "node:net";
import v8 from "node:v8";
import vm from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CALL_STREAM_LIMITS } from "@/lib/server/calls/call-event-stream";
import { db } from "@/lib/server/db";
import { openStreamCount } from "@/lib/server/http/event-streams";
import type { Call } from "@/lib/types/call";
import { requestCall, waitForStatus } from "../api/approvals-fixtures";
import { startTestApiServer, type TestApiServer } from "../helpers/api-server";
import { setUpTestConsole, writeSkill } from "../helpers/test-console";
import { createPerson, type TestPerson } from "../helpers/test-people";

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;

let server: TestApiServer;
let viewer: TestPerson;

/** The heap and array buffers in use after full collections, in MiB (a stream's queued bytes are array buffers). */
function heapMiB(): number {
  for (let i = 0; i < 3; i++) gc();
  const usage = process.memoryUsage();
  return (usage.heapUsed + usage.arrayBuffers) / 1024 / 1024;
}

beforeAll(async () => {
  const testConsole = await setUpTestConsole();
  // 60,000 lines (more than the sockets' buffers take of a replay), a pause in which the reader
  // connects, then 110,000 lines of ~50 bytes (under the call's 8 MiB and 250,000 lines of stderr).
  writeSkill(
    testConsole.root,
    "flood",
    { name: "flood", class: "safe", timeout_seconds: 120 },
    `python3 -c 'import sys,time
for i in range(60000): sys.stderr.write("line %d\\n" % i)
sys.stderr.flush(); time.sleep(3)
for i in range(110000): sys.stderr.write("line %d %s\\n" % (i, "x" * 40))'; echo '{}'`,
  );
  writeSkill(testConsole.root, "controls", { name: "controls", class: "safe", timeout_seconds: 60 }, `python3 -c 'import sys
for i in range(100): sys.stderr.write("\\x01" * 60000 + "\\n")'; echo '{}'`);
  viewer = await createPerson("viewer");
  server = await startTestApiServer();
});

afterAll(async () => {
  await server?.close();
});

/** Reads a whole event stream; counts its line events and whether it ended with `end`. */
async function readAll(url: string, headers: Record<string, string>): Promise<{ lines: number; end: boolean }> {
  const answer = await fetch(url, { headers });
  expect(answer.status).toBe(200);
  const reader = answer.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let lines = 0;
  let end = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    let at: number;
    while ((at = text.indexOf("\n\n")) !== -1) {
      const block = text.slice(0, at);
      text = text.slice(at + 2);
      if (block.startsWith("id: ") && block.includes("\nevent: line\n")) lines++;
      if (block.startsWith("event: end")) end = true;
    }
  }
  return { lines, end };
}

describe("a call's event stream and a client that reads slowly or not at all", () => {
  it("holds a bounded backlog for a client that stops reading during the replay, whatever the call prints", { timeout: 120_000 }, async () => {
    const started = await requestCall("flood", { args: {}, wait: false });
    expect(started.status).toBe(202);
    const call = ((await started.json()) as { call: Call }).call;
    const deadline = Date.now() + 60_000;
    while ((await db().callEvent.count({ where: { callId: call.id } })) < 60_000 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    const before = heapMiB();
    const { port } = new URL(server.url);
    const socket = net.connect(Number(port), "127.0.0.1");
    socket.on("error", () => undefined);
    await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
    // Never read: the kernel's buffers fill, then whatever the console keeps for it.
    socket.pause();
    socket.write(`GET /api/v1/calls/${call.id}/events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nCookie: ${viewer.headers.cookie}\r\nAccept: text/event-stream\r\n\r\n`);
    try {
      expect(await waitForStatus(call.id, ["succeeded"], 90_000)).toBe("succeeded");
      expect(await db().callEvent.count({ where: { callId: call.id } })).toBeGreaterThan(150_000);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(openStreamCount(CALL_STREAM_LIMITS)).toBe(1);
      const holding = heapMiB();
      console.log(`memory held for the stalled reader: ${(holding - before).toFixed(1)} MiB`);
      // The live lines (about 5.5 MB of text, tens of MiB as objects) were held for it before the fix.
      expect(holding - before).toBeLessThan(10);
    } finally {
      socket.destroy();
    }
    const deadlineClosed = Date.now() + 5_000;
    while (openStreamCount(CALL_STREAM_LIMITS) > 0 && Date.now() < deadlineClosed) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(openStreamCount(CALL_STREAM_LIMITS)).toBe(0);
  });

  it("streams a finished call of long lines that escape to six times their size, whole, with its end", { timeout: 60_000 }, async () => {
    const answer = await requestCall("controls", { args: {} });
    const call = ((await answer.json()) as { call: Call }).call;
    expect(call.status).toBe("succeeded");
    const stored = await db().callEvent.count({ where: { callId: call.id } });
    expect(stored).toBeGreaterThanOrEqual(100);
    for (let attempt = 0; attempt < 2; attempt++) {
      expect(await readAll(`${server.url}/api/v1/calls/${call.id}/events`, viewer.headers)).toEqual({ lines: stored, end: true });
    }
  });
});

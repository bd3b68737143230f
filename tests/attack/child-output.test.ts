/**
 * Attacks by a hostile child process (or a skill echoing hostile data) on what the console stores and
 * serves, and by a hostile client on the event stream (DESIGN.md wire protocol and HTTP interface).
 */
import { beforeAll, describe, expect, it } from "vitest";
import * as callRoute from "@/app/api/v1/calls/[id]/route";
import * as eventsRoute from "@/app/api/v1/calls/[id]/events/route";
import * as callsRoute from "@/app/api/v1/calls/route";
import * as skillCallsRoute from "@/app/api/v1/skills/[name]/calls/route";
import type { Call, CallWithEvents } from "@/lib/types/call";
import { invoke, readEvents } from "../helpers/route-client";
import { setUpTestConsole, writeSkill, type TestConsole } from "../helpers/test-console";

let testConsole: TestConsole;

async function run(skill: string, body: unknown = {}): Promise<{ status: number; call: Call }> {
  const response = await invoke(skillCallsRoute.POST, `/api/v1/skills/${skill}/calls`, { body, params: { name: skill } });
  return { status: response.status, call: ((await response.json()) as { call: Call }).call };
}

beforeAll(async () => {
  testConsole = await setUpTestConsole();
  const { root } = testConsole;
  writeSkill(root, "deep_result", { name: "deep_result", env_allow: ["PATH"] }, `python3 -c 'print("{\\"a\\":" + "[" * 20000 + "]" * 20000 + "}")'`);
  writeSkill(root, "env_probe", { name: "env_probe", env_allow: ["constructor", "toString", "hasOwnProperty", "__proto__", "PATH"] }, `echo "{\\"names\\": \\"$(env | cut -d= -f1 | grep -v '^_$\\|^PWD$\\|^SHLVL$' | sort | tr '\\n' ' ')\\"}"`);
  writeSkill(root, "ok", { name: "ok" }, "echo 'a line' >&2; echo '{}'");
  writeSkill(root, "proto_result", { name: "proto_result" }, `printf 'control \\033[31mred\\000 nul \\377 bad utf-8\\n' >&2; echo '{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}}'`);
});

describe("results nested deeper than the console can serialise", () => {
  it("fails the call instead of storing a result that breaks every listing", async () => {
    const { status, call } = await run("deep_result");
    expect(status).toBe(200);
    expect(call.status).toBe("failed");
    expect(call.result).toBeNull();
    expect(call.error).toMatch(/nests deeper than \d+ levels/);
    const list = await invoke(callsRoute.GET, "/api/v1/calls");
    expect(list.status).toBe(200);
    const one = await invoke(callRoute.GET, `/api/v1/calls/${call.id}`, { params: { id: call.id } });
    expect(one.status).toBe(200);
  });
});

describe("env_allow forwards only variables the console really has", () => {
  it("never turns Object.prototype members (constructor, toString, …) into environment variables", async () => {
    const { call } = await run("env_probe");
    expect(call.status).toBe("succeeded");
    expect((call.result as { names: string }).names.trim()).toBe("PATH");
  });
});

describe("event stream resume", () => {
  it("treats a Last-Event-ID beyond any seq as 'after everything' instead of failing the stream", async () => {
    const { call } = await run("ok");
    const stream = await invoke(eventsRoute.GET, `/api/v1/calls/${call.id}/events`, { params: { id: call.id }, headers: { "last-event-id": "99999999999999999999" } });
    const events = readEvents(stream);
    expect((await events.next())?.event).toBe("end");
    const stored = (await (await invoke(callRoute.GET, `/api/v1/calls/${call.id}`, { params: { id: call.id } })).json()) as { call: CallWithEvents };
    expect(stored.call.events.length).toBeGreaterThan(0);
  });
});

describe("hostile but well-formed output", () => {
  it("stores __proto__ keys of a result as plain data, and control bytes of stderr as escaped text", async () => {
    const { call } = await run("proto_result");
    expect(call.status).toBe("succeeded");
    expect(Object.keys(call.result!)).toEqual(["__proto__", "constructor"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const response = await invoke(callRoute.GET, `/api/v1/calls/${call.id}`, { params: { id: call.id } });
    const text = await response.text();
    // JSON escapes ESC; NUL (which PostgreSQL's text cannot hold) and invalid UTF-8 became U+FFFD: nothing raw reaches a client.
    expect(text).not.toMatch(/[\u0000\u001b]/);
    const stderr = (JSON.parse(text) as { call: CallWithEvents }).call.events.find((event) => event.stream === "stderr")!.line;
    expect(stderr).toBe("control \u001b[31mred\ufffd nul \ufffd bad utf-8");
  });
});

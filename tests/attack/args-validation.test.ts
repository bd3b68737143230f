/**
 * Attacks on args validation by a hostile HTTP client (DESIGN.md wire protocol: args are validated
 * against the skill's schema before spawning). The console has one event loop: a request whose
 * validation takes minutes (a catastrophic `pattern`, an O(n²) `uniqueItems`) must not freeze every
 * other request, cancel and lease renewal with it; args the schema rejects must never start a process.
 */
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import * as callsRoute from "@/app/api/v1/calls/route";
import * as skillCallsRoute from "@/app/api/v1/skills/[name]/calls/route";
import { db } from "@/lib/server/db";
import { validateArgs } from "@/lib/validation/ajv";
import { MAX_REPORTED_ERRORS } from "@/lib/validation/args-validator";
import { checkManifest } from "@/lib/validation/manifest-schema";
import type { Call } from "@/lib/types/call";
import { invoke } from "../helpers/route-client";
import { setUpTestConsole, writeSkill, type TestConsole } from "../helpers/test-console";

let testConsole: TestConsole;

function startCall(skill: string, body: unknown) {
  return invoke(skillCallsRoute.POST, `/api/v1/skills/${skill}/calls`, { body, params: { name: skill } });
}

/** Runs `work` and measures how late a 50 ms timer armed at the same time fires (event-loop stall). */
async function withLoopLag<T>(work: () => Promise<T>): Promise<{ value: T; lagMs: number; elapsedMs: number }> {
  const started = Date.now();
  const armed = Date.now();
  const lag = new Promise<number>((resolve) => setTimeout(() => resolve(Date.now() - armed - 50), 50));
  const value = await work();
  return { value, lagMs: await lag, elapsedMs: Date.now() - started };
}

beforeAll(async () => {
  testConsole = await setUpTestConsole({ MARKER_DIR: "" });
  const markers = path.join(testConsole.dir, "markers");
  fs.mkdirSync(markers);
  process.env.MARKER_DIR = markers;
  const { root } = testConsole;
  // A pattern an honest author may well write: words separated by single spaces. It backtracks
  // exponentially on a long word followed by a character it cannot match.
  writeSkill(root, "words", { name: "words", schema: { type: "object", properties: { text: { type: "string", pattern: "^(\\w+\\s?)*$" } } } }, "echo '{}'");
  writeSkill(root, "tags", { name: "tags", schema: { type: "object", properties: { tags: { type: "array", uniqueItems: true } } } }, "echo '{}'");
  writeSkill(root, "needs_ctor", { name: "needs_ctor", env_allow: ["MARKER_DIR"], schema: { type: "object", required: ["constructor", "toString"] } }, 'touch "$MARKER_DIR/needs_ctor"; echo "{}"');
  writeSkill(root, "named_like_builtins", { name: "named_like_builtins", schema: { type: "object", properties: { toString: { type: "string" }, valueOf: { type: "integer" } } } }, "echo '{}'");
  writeSkill(root, "open_schema", { name: "open_schema" }, "echo '{}'");
  writeSkill(root, "typed_items", { name: "typed_items", schema: { type: "object", properties: { items: { type: "array", items: { type: "string" } } } } }, "echo '{}'");
});

describe("validation time is bounded (catastrophic patterns, quadratic uniqueItems)", () => {
  it("refuses args whose `pattern` check backtracks catastrophically, without stalling the console", async () => {
    const { value: response, lagMs, elapsedMs } = await withLoopLag(() => startCall("words", { args: { text: `${"a".repeat(30)}!` } }));
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: string; details: Array<{ keyword: string; message: string }> } };
    expect(body.error.code).toBe("invalid_args");
    expect(body.error.details[0]!.message).toMatch(/took longer than \d+ ms/);
    // Generous bounds for a loaded machine; unbounded, this takes tens of seconds to hours.
    expect(elapsedMs).toBeLessThan(15_000);
    expect(lagMs).toBeLessThan(3000);
  }, 120_000);

  it("still validates honest args against the same pattern", async () => {
    expect((await startCall("words", { args: { text: "two words" } })).status).toBe(200);
    expect((await startCall("words", { args: { text: "not-a-word" } })).status).toBe(400);
  });

  it("refuses a huge uniqueItems array of objects (quadratic deep-equal) without stalling the console", async () => {
    const tags = Array.from({ length: 40_000 }, (_, i) => ({ t: i }));
    const { value: response, lagMs, elapsedMs } = await withLoopLag(() => startCall("tags", { args: { tags } }));
    expect([200, 400]).toContain(response.status);
    // Generous bounds for a loaded machine; unbounded, this takes tens of seconds to hours.
    expect(elapsedMs).toBeLessThan(15_000);
    expect(lagMs).toBeLessThan(3000);
    const duplicate = await startCall("tags", { args: { tags: [{ a: 1, b: 2 }, { b: 2, a: 1 }] } });
    expect(duplicate.status).toBe(400);
  }, 120_000);

  it("keeps serving other requests while a slow validation runs", async () => {
    const started = Date.now();
    const slow = startCall("words", { args: { text: `${"a".repeat(31)}!` } });
    const list = await invoke(callsRoute.GET, "/api/v1/calls?limit=1");
    expect(list.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(3000);
    expect((await slow).status).toBe(400);
  }, 120_000);
});

describe("the validation thread's priority", () => {
  it("runs at nice 10, so megabytes of args to check never take a CPU from the main thread", async () => {
    // A call validated in the thread starts it (if no earlier test did).
    expect((await startCall("words", { args: { text: "hello" } })).status).not.toBe(500);
    const niceOf = (task: string) => Number(fs.readFileSync(`/proc/self/task/${task}/stat`, "utf8").split(") ")[1]!.split(" ")[16]);
    const tasks = fs.readdirSync("/proc/self/task");
    expect(niceOf(String(process.pid))).toBe(0);
    expect(tasks.map(niceOf).filter((nice) => nice === 10).length).toBeGreaterThanOrEqual(1);
  });
});

describe("the size of an invalid_args answer", () => {
  it("reports at most MAX_REPORTED_ERRORS ajv errors, however many items are wrong", async () => {
    const itemsSchema = await startCall("typed_items", { args: { items: Array.from({ length: 5000 }, (_, i) => i) } });
    expect(itemsSchema.status).toBe(400);
    const details = ((await itemsSchema.json()) as { error: { details: unknown[] } }).error.details;
    expect(details.length).toBeLessThanOrEqual(MAX_REPORTED_ERRORS);
    expect(details.length).toBeGreaterThan(0);
  });
});

describe("inherited properties never satisfy a schema", () => {
  it("does not let Object.prototype members satisfy `required`", async () => {
    expect(validateArgs({ type: "object", required: ["constructor"] }, {}).ok).toBe(false);
    const before = await db().call.count();
    const response = await startCall("needs_ctor", { args: {} });
    expect(response.status).toBe(400);
    expect(fs.existsSync(path.join(process.env.MARKER_DIR!, "needs_ctor"))).toBe(false);
    expect(await db().call.count()).toBe(before);
  });

  it("does not validate Object.prototype members as if they were sent", async () => {
    expect(validateArgs({ type: "object", properties: { toString: { type: "string" } } }, {}).ok).toBe(true);
    const response = await startCall("named_like_builtins", { args: {} });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { call: Call }).call.status).toBe("succeeded");
  });

  it("treats __proto__ in args as plain data that reaches the child verbatim", async () => {
    const response = await startCall("open_schema", '{"args": {"__proto__": {"polluted": true}, "x": 1}}');
    expect(response.status).toBe(200);
    const { call } = (await response.json()) as { call: Call };
    expect(Object.keys(call.args ?? {})).toEqual(["__proto__", "x"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("deeply nested args", () => {
  it("answers 400 (not 500) for args nested deeper than the console can serialise, before parsing them", async () => {
    const depth = 20_000;
    const body = `{"args": {"a": ${"[".repeat(depth)}${"]".repeat(depth)}}}`;
    const before = await db().call.count();
    const response = await startCall("open_schema", body);
    expect(response.status).toBe(400);
    const error = ((await response.json()) as { error: { code: string; message: string } }).error;
    // Refused as the body streams in (issue 10 point 1): 130 levels is the args' 128 and the body's wrapping.
    expect(error).toEqual({ code: "bad_request", message: "request body nests deeper than 130 levels" });
    expect(await db().call.count()).toBe(before);
  });

  it("answers 400 invalid_args for args one level deeper than MAX_JSON_DEPTH that the body's bound lets through", async () => {
    // {"args": {"a": [×128]}}: the body nests 130 levels (accepted), the args 129 (refused).
    const body = `{"args": {"a": ${"[".repeat(128)}${"]".repeat(128)}}}`;
    const response = await startCall("open_schema", body);
    expect(response.status).toBe(400);
    const error = ((await response.json()) as { error: { code: string; message: string } }).error;
    expect(error).toMatchObject({ code: "invalid_args", message: "args nest deeper than 128 levels" });
  });
});

describe("schemas written by a hostile skill author", () => {
  it("never fetches a remote $ref: the manifest is refused as unresolvable, synchronously", () => {
    // checkManifest is synchronous and ajv has no loadSchema: the $ref is refused, never fetched.
    const url = "http://127.0.0.1:9/schema.json";
    expect(checkManifest({ name: "remote", description: "d", entry: "run.sh", schema: { $ref: url } })).toEqual({
      ok: false,
      message: `/schema is not a valid JSON Schema: can't resolve reference ${url} from id #`,
      name: "remote",
    });
  });

  it("keeps __proto__ keys of a manifest as data: they change neither the skill nor Object.prototype", () => {
    const manifest = JSON.parse('{"name": "p", "description": "d", "entry": "run.sh", "__proto__": {"class": "safe", "polluted": true}, "schema": {"type": "object", "__proto__": {"x": 1}}}') as unknown;
    const check = checkManifest(manifest);
    expect(check).toMatchObject({ ok: true, warnings: ['unknown field "__proto__" in skill.json ignored'] });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

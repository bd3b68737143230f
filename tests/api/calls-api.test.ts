import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import * as callRoute from "@/app/api/v1/calls/[id]/route";
import * as cancelRoute from "@/app/api/v1/calls/[id]/cancel/route";
import * as eventsRoute from "@/app/api/v1/calls/[id]/events/route";
import * as callsRoute from "@/app/api/v1/calls/route";
import * as skillCallsRoute from "@/app/api/v1/skills/[name]/calls/route";
import { db } from "@/lib/server/db";
import type { Call, CallWithEvents } from "@/lib/types/call";
import { isAlive, waitForPid } from "../executor/helpers";
import { invoke, readEvents } from "../helpers/route-client";
import { setUpTestConsole, writeSkill, type TestConsole } from "../helpers/test-console";

let testConsole: TestConsole;
let markerDir: string;

function marker(name: string): string {
  return path.join(markerDir, name);
}


function startCall(skill: string, body: unknown) {
  return invoke(skillCallsRoute.POST, `/api/v1/skills/${skill}/calls`, { body, params: { name: skill } });
}

beforeAll(async () => {
  testConsole = await setUpTestConsole({ SKILL_ARGS_LIMIT_BYTES: "4096", MARKER_DIR: "" });
  markerDir = path.join(testConsole.dir, "markers");
  fs.mkdirSync(markerDir);
  process.env.MARKER_DIR = markerDir;
  const { root } = testConsole;
  writeSkill(
    root,
    "greet",
    {
      name: "greet",
      category: "demo",
      env_allow: ["PATH"],
      schema: { type: "object", properties: { who: { type: "string", minLength: 1 }, email: { type: "string", format: "email" } }, required: ["who"] },
    },
    `args=$(cat); echo "reading args" >&2; echo "second line" >&2; printf '{"hello": %s}' "$(printf '%s' "$args" | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)["who"]))')"`,
  );
  writeSkill(root, "touches_marker", { name: "touches_marker", env_allow: ["MARKER_DIR"], schema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] } }, 'touch "$MARKER_DIR/touched"; echo "{}"');
  writeSkill(root, "mutator", { name: "mutator", class: "mutating", env_allow: ["MARKER_DIR"] }, 'touch "$MARKER_DIR/mutator-ran"; echo "{}"');
  writeSkill(root, "destroyer", { name: "destroyer", class: "dangerous", env_allow: ["MARKER_DIR"] }, 'touch "$MARKER_DIR/destroyer-ran"; echo "{}"');
  writeSkill(root, "not_json", { name: "not_json" }, "echo 'hello world'");
  writeSkill(root, "exits_three", { name: "exits_three" }, 'echo "about to fail" >&2; exit 3');
  writeSkill(root, "env_dump", { name: "env_dump", env_allow: ["MARKER_DIR", "NOT_SET_ANYWHERE"] }, 'printf "{\\"env\\": \\"%s\\", \\"cwd\\": \\"%s\\"}" "$(env | grep -v "^_=\\|^PWD=\\|^SHLVL=" | sort | tr "\\n" " ")" "$PWD"');
  writeSkill(
    root,
    "waits_for_release",
    { name: "waits_for_release", env_allow: ["MARKER_DIR"] },
    'echo "line one" >&2; echo "line two" >&2; while [ ! -e "$MARKER_DIR/release" ]; do sleep 0.02; done; echo "after release" >&2; echo \'{"released": true}\'',
  );
  writeSkill(root, "sleeper", { name: "sleeper", env_allow: ["MARKER_DIR"] }, 'echo $$ > "$MARKER_DIR/sleeper.pid"; echo "sleeping" >&2; sleep 30 & wait');
  writeSkill(root, "slow", { name: "slow", timeout_seconds: 1 }, 'echo "started" >&2; sleep 30 & wait');
});

describe("POST /api/v1/skills/{name}/calls", () => {
  it("runs a safe skill to its end state and answers 200 with the call, its result, exit code and duration", async () => {
    const response = await startCall("greet", { args: { who: "ops" } });
    expect(response.status).toBe(200);
    const { call } = (await response.json()) as { call: Call };
    expect(call).toMatchObject({ skill: "greet", status: "succeeded", result: { hello: "ops" }, exitCode: 0, error: null, args: { who: "ops" }, persona: "default", requestedBy: "admin@console.local" });
    expect(call.durationMs).toBeGreaterThan(0);
    const stored = (await (await invoke(callRoute.GET, `/api/v1/calls/${call.id}`, { params: { id: call.id } })).json()) as { call: CallWithEvents };
    expect(stored.call.events.map((event) => [event.seq, event.stream, event.line])).toEqual([
      [1, "system", expect.stringMatching(/^started .*run\.sh \(pid \d+\)$/)],
      [2, "stderr", "reading args"],
      [3, "stderr", "second line"],
      [4, "system", expect.stringMatching(/^exited with code 0 after \d+ ms$/)],
    ]);
    expect(stored.call.eventCount).toBe(4);
    // Timestamps come back as the instants they were written at, in order, within the call.
    const times = stored.call.events.map((event) => Date.parse(event.at));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect(times[0]).toBeGreaterThanOrEqual(Date.parse(stored.call.startedAt!) - 1);
    expect(times[times.length - 1]).toBeLessThanOrEqual(Date.parse(stored.call.endedAt!));
    expect(stored.call.events[1]!.at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it("rejects invalid args with 400 invalid_args and ajv errors, stores nothing and starts no process", async () => {
    const before = await db().call.count();
    const response = await startCall("touches_marker", { args: { n: "seven" } });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: string; details: Array<{ instancePath: string; keyword: string }> } };
    expect(body.error.code).toBe("invalid_args");
    expect(body.error.details).toEqual([expect.objectContaining({ instancePath: "/n", keyword: "type" })]);
    const missing = await startCall("touches_marker", { args: {} });
    expect(((await missing.json()) as { error: { details: Array<{ keyword: string }> } }).error.details[0]!.keyword).toBe("required");
    expect(fs.existsSync(marker("touched"))).toBe(false);
    expect(await db().call.count()).toBe(before);
  });

  it("validates formats before spawning", async () => {
    const response = await startCall("greet", { args: { who: "x", email: "not-an-email" } });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { details: Array<{ instancePath: string; keyword: string }> } };
    expect(body.error.details).toEqual([expect.objectContaining({ instancePath: "/email", keyword: "format" })]);
  });

  it.each([
    ["mutator", "persona default (read-only): a read-only persona may not run mutating skills"],
    ["destroyer", "persona default (read-only): a read-only persona may not run dangerous skills"],
  ])("answers 403 forbidden for %s under the default persona and never starts a process", async (skill, reason) => {
    const before = await db().call.count();
    const response = await startCall(skill, { args: {} });
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({ error: { code: "forbidden", message: `${skill}: ${reason}` } });
    expect(fs.existsSync(marker(`${skill}-ran`))).toBe(false);
    expect(await db().call.count()).toBe(before);
  });

  it("answers 404 for an unknown skill, 413 for oversized args and 400 for a bad body", async () => {
    const unknown = await startCall("nope", { args: {} });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe("not_found");
    const large = await startCall("greet", { args: { who: "x".repeat(5000) } });
    expect(large.status).toBe(413);
    expect(((await large.json()) as { error: { code: string } }).error.code).toBe("args_too_large");
    const broken = await startCall("greet", "{not json");
    expect(broken.status).toBe(400);
    expect(((await broken.json()) as { error: { code: string } }).error.code).toBe("bad_request");
    const typo = await startCall("touches_marker", { argz: { n: 1 } });
    expect(typo.status).toBe(400);
    expect(await typo.json()).toEqual({
      error: { code: "bad_request", message: 'unknown field "argz"; a call request has args, persona, wait, target' },
    });
    expect(fs.existsSync(marker("touched"))).toBe(false);
    const array = await startCall("greet", { args: [1] });
    expect(array.status).toBe(400);
    expect(((await array.json()) as { error: { code: string } }).error.code).toBe("invalid_args");
  });

  it("fails a call whose stdout is not one JSON object, and one that exits non-zero, keeping stderr", async () => {
    const notJson = (await (await startCall("not_json", {})).json()) as { call: Call };
    expect(notJson.call.status).toBe("failed");
    expect(notJson.call.exitCode).toBe(0);
    expect(notJson.call.error).toMatch(/^stdout is not a JSON object/);
    const exits = (await (await startCall("exits_three", {})).json()) as { call: Call };
    expect(exits.call).toMatchObject({ status: "failed", exitCode: 3, error: "exited with code 3", result: null });
    const stored = (await (await invoke(callRoute.GET, `/api/v1/calls/${exits.call.id}`, { params: { id: exits.call.id } })).json()) as { call: CallWithEvents };
    expect(stored.call.events.filter((event) => event.stream === "stderr").map((event) => event.line)).toEqual(["about to fail"]);
  });

  it("gives the child exactly the env_allow names the worker has, and the call's snapshot of the skill folder as working directory", async () => {
    const { call } = (await (await startCall("env_dump", {})).json()) as { call: Call };
    expect(call.status).toBe("succeeded");
    // Unsandboxed (SKILL_SANDBOX=none) the snapshot is run where it is; in the sandbox it is bound at the skill's own path.
    expect(call.result).toEqual({ env: `MARKER_DIR=${markerDir} `, cwd: path.join(testConsole.dir, "worker-local", "snapshots", call.skillDigest!, "folder") });
  });

  it("ends a call past its manifest timeout as timed_out", async () => {
    const { call } = (await (await startCall("slow", {})).json()) as { call: Call };
    expect(call.status).toBe("timed_out");
    expect(call.error).toBe("timed out after 1000 ms");
    expect(call.durationMs).toBeGreaterThanOrEqual(1000);
  });
});

describe("live timeline and cancel", () => {
  it("answers 202 with wait:false, streams stderr lines while the call runs, then the end state", async () => {
    const response = await startCall("waits_for_release", { args: {}, wait: false });
    expect(response.status).toBe(202);
    const { call } = (await response.json()) as { call: Call };
    expect(["queued", "running"]).toContain(call.status);

    const stream = await invoke(eventsRoute.GET, `/api/v1/calls/${call.id}/events`, { params: { id: call.id } });
    expect(stream.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const events = readEvents(stream);
    const seen: string[] = [];
    while (!seen.includes("line two")) {
      const event = await events.next();
      expect(event?.event).toBe("line");
      seen.push((JSON.parse(event!.data) as { line: string }).line);
    }
    // The child is still blocked: the lines arrived live, before the end.
    const running = (await (await invoke(callRoute.GET, `/api/v1/calls/${call.id}`, { params: { id: call.id } })).json()) as { call: CallWithEvents };
    expect(running.call.status).toBe("running");
    // ...and they already reached the database (batched, well within a second).
    await expect.poll(async () => (await db().callEvent.count({ where: { callId: call.id, line: "line two" } })), { timeout: 1000 }).toBe(1);

    fs.writeFileSync(marker("release"), "");
    let end = await events.next();
    while (end && end.event === "line") {
      seen.push((JSON.parse(end.data) as { line: string }).line);
      end = await events.next();
    }
    expect(end?.event).toBe("end");
    const final = JSON.parse(end!.data) as { call: Call };
    expect(final.call).toMatchObject({ id: call.id, status: "succeeded", result: { released: true }, exitCode: 0 });
    expect(seen.filter((line) => !line.startsWith("started ") && !line.startsWith("exited "))).toEqual(["line one", "line two", "after release"]);
    expect(await events.next()).toBeNull();
  });

  it("keeps the status another console gave a call (interrupted) when its process ends later", async () => {
    fs.rmSync(marker("release"), { force: true });
    const { call } = (await (await startCall("waits_for_release", { args: {}, wait: false })).json()) as { call: Call };
    await expect.poll(async () => (await db().call.findUniqueOrThrow({ where: { id: call.id } })).status).toBe("running");
    await db().call.update({ where: { id: call.id }, data: { status: "interrupted", error: "marked by another console" } });
    fs.writeFileSync(marker("release"), "");
    const stream = readEvents(await invoke(eventsRoute.GET, `/api/v1/calls/${call.id}/events`, { params: { id: call.id } }));
    let event = await stream.next();
    while (event && event.event !== "end") event = await stream.next();
    expect((JSON.parse(event!.data) as { call: Call }).call).toMatchObject({ status: "interrupted", error: "marked by another console", result: null });
    expect(await db().call.findUniqueOrThrow({ where: { id: call.id } })).toMatchObject({ status: "interrupted", error: "marked by another console" });
  });

  it("replays a finished call's whole timeline and end state, and resumes after Last-Event-ID", async () => {
    const { call } = (await (await startCall("greet", { args: { who: "again" } })).json()) as { call: Call };
    const all = readEvents(await invoke(eventsRoute.GET, `/api/v1/calls/${call.id}/events`, { params: { id: call.id } }));
    const ids: Array<string | undefined> = [];
    let event = await all.next();
    while (event && event.event === "line") {
      ids.push(event.id);
      event = await all.next();
    }
    expect(ids).toEqual(["1", "2", "3", "4"]);
    expect(event?.event).toBe("end");
    expect(await all.next()).toBeNull();

    const resumed = readEvents(await invoke(eventsRoute.GET, `/api/v1/calls/${call.id}/events`, { params: { id: call.id }, headers: { "last-event-id": "2" } }));
    expect((await resumed.next())?.id).toBe("3");
    expect((await resumed.next())?.id).toBe("4");
    expect((await resumed.next())?.event).toBe("end");
  });

  it("answers 404 on the stream of an unknown call", async () => {
    const response = await invoke(eventsRoute.GET, "/api/v1/calls/nope/events", { params: { id: "nope" } });
    expect(response.status).toBe(404);
  });

  it("cancels a running call once its process group is gone, and refuses to cancel it twice", async () => {
    const { call } = (await (await startCall("sleeper", { args: {}, wait: false })).json()) as { call: Call };
    const pid = await waitForPid(marker("sleeper.pid"));
    const response = await invoke(cancelRoute.POST, `/api/v1/calls/${call.id}/cancel`, { method: "POST", params: { id: call.id } });
    expect(response.status).toBe(200);
    const { call: cancelled } = (await response.json()) as { call: Call };
    expect(cancelled.status).toBe("cancelled");
    expect(isAlive(pid)).toBe(false);
    // Who asked is on the call and in the audit trail (the worker's report that ended it is the system's).
    expect(cancelled.error).toBe("cancelled on request by admin@console.local");
    const requested = await db().auditEvent.findMany({ where: { callId: call.id, action: "call.cancel_requested" } });
    expect(requested.map((entry) => [entry.actor, entry.skill])).toEqual([["admin@console.local", "sleeper"]]);
    const again = await invoke(cancelRoute.POST, `/api/v1/calls/${call.id}/cancel`, { method: "POST", params: { id: call.id } });
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe("not_running");
  });
});

describe("GET /api/v1/calls", () => {
  it("lists calls newest first, filtered by skill, status and limit", async () => {
    const all = (await (await invoke(callsRoute.GET, "/api/v1/calls")).json()) as { calls: Call[] };
    expect(all.calls.length).toBeGreaterThan(3);
    const created = all.calls.map((call) => call.createdAt);
    expect([...created].sort().reverse()).toEqual(created);
    const greet = (await (await invoke(callsRoute.GET, "/api/v1/calls?skill=greet&status=succeeded")).json()) as { calls: Call[] };
    expect(greet.calls.length).toBe(2);
    expect(greet.calls.every((call) => call.skill === "greet" && call.status === "succeeded")).toBe(true);
    const one = (await (await invoke(callsRoute.GET, "/api/v1/calls?limit=1")).json()) as { calls: Call[] };
    expect(one.calls).toHaveLength(1);
    const bad = await invoke(callsRoute.GET, "/api/v1/calls?status=exploded");
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe("bad_request");
  });

  it("answers 404 for an unknown call id", async () => {
    const response = await invoke(callRoute.GET, "/api/v1/calls/missing", { params: { id: "missing" } });
    expect(response.status).toBe(404);
  });
});


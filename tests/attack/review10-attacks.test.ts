/**
 * What an attacker found against issue 10's claims, each closed as a class:
 * - megabytes beside the args (99,990 unknown keys, an 8 MiB persona or tool name, an MCP `params._meta`)
 *   were parsed on the main thread and echoed back in the error: everything but the args is now at most
 *   PARSED_BESIDE_TEXT_MAX_BYTES, and no error message or details carries megabytes;
 * - thousands of event streams of one viewer made the console unresponsive for minutes: streams are
 *   limited per person (their API tokens counted with them: 17 tokens of one operator held all 256) and in all;
 * - a client repeating one refused request thousands of times a second grew the audit trail by
 *   megabytes a second: repeats within REPEAT_WINDOW_MS are counted and written once as a summary;
 * - varying the client address (127.0.0.0/8) and the token made every refusal a new source: a source
 *   is the person when one is known, and a window writes at most REFUSALS_WRITTEN_PER_WINDOW in all.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as eventsRoute from "@/app/api/v1/calls/[id]/events/route";
import * as mcpRoute from "@/app/api/mcp/route";
import * as toolsCallRoute from "@/app/api/v1/tools/call/route";
import * as usersRoute from "@/app/api/v1/users/route";
import * as loginRoute from "@/app/api/v1/auth/login/route";
import { flushRefusalRepeats, REFUSALS_PER_SOURCE, REFUSALS_WRITTEN_PER_WINDOW } from "@/lib/server/audit/audit-trail";
import { CALL_STREAMS_PER_HOLDER_MAX } from "@/lib/server/calls/call-event-stream";
import { db } from "@/lib/server/db";
import { AppError, errorResponse } from "@/lib/server/errors";
import { PARSED_BESIDE_TEXT_MAX_BYTES } from "@/lib/server/http/api-route";
import { refuseUnknownFields } from "@/lib/server/http/known-fields";
import type { Call } from "@/lib/types/call";
import { WORKER_LISTED_SKILLS, type WorkerInfo, type WorkerSkillPage } from "@/lib/types/worker";
import { createPersonaRow, createToken, errorOf, requestCall } from "../api/approvals-fixtures";
import * as skillCallsRoute from "@/app/api/v1/skills/[name]/calls/route";
import { invoke } from "../helpers/route-client";
import { setUpTestConsole, writeSkill } from "../helpers/test-console";
import { createPerson, type TestPerson } from "../helpers/test-people";

let operator: TestPerson;
let agent: Record<string, string>;

beforeAll(async () => {
  const testConsole = await setUpTestConsole();
  writeSkill(testConsole.root, "open", { name: "open", schema: { type: "object" } }, 'cat >/dev/null; echo "{}"');
  writeSkill(testConsole.root, "mover", { name: "mover", class: "mutating" }, 'echo "{}"');
  await createPersonaRow("confirming", "mutating-with-confirm");
  writeSkill(testConsole.root, "wiper", { name: "wiper", class: "dangerous" }, 'echo "{}"');
  await createPersonaRow("dual", "dual-sign-required");
  operator = await createPerson("operator");
  agent = await createToken("default", "admin");
});

const manyKeys = (count: number) => Array.from({ length: count }, (_, i) => `"k${i}${"x".repeat(70)}":0`).join(",");

describe("what is parsed beside the args", () => {
  it("refuses 99,990 unknown keys beside a call's args with a short 413, before parsing them", async () => {
    const response = await invoke(skillCallsRoute.POST, "/api/v1/skills/open/calls", {
      body: `{"args":{},"wait":false,${manyKeys(99_990)}}`,
      params: { name: "open" },
    });
    expect(response.status).toBe(413);
    const text = await response.text();
    expect(text.length).toBeLessThan(300);
    expect(JSON.parse(text)).toEqual({ error: { code: "args_too_large", message: expect.stringMatching(new RegExp(`^request body has \\d+ bytes besides args; at most ${PARSED_BESIDE_TEXT_MAX_BYTES} are allowed$`)) } });
  });

  it("refuses an 8 MiB persona name beside the args, and a 7 MiB tool name, the same way", async () => {
    const persona = await invoke(skillCallsRoute.POST, "/api/v1/skills/open/calls", {
      body: JSON.stringify({ args: {}, persona: "p".repeat(8 * 1024 * 1024) }),
      params: { name: "open" },
    });
    expect(persona.status).toBe(413);
    const tool = await invoke(toolsCallRoute.POST, "/api/v1/tools/call", { body: JSON.stringify({ name: "n".repeat(7 * 1024 * 1024), arguments: {} }), as: agent });
    expect(tool.status).toBe(413);
    expect(((await errorOf(tool)) as { message: string }).message).toMatch(/^request body has \d+ bytes besides arguments; at most 65536 are allowed$/);
  });

  it("refuses an MCP tools/call with 99,990 keys in params._meta (413, -32000) before parsing it", async () => {
    const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"skill_search","arguments":{"query":"x"},"_meta":{${manyKeys(99_990)}}}}`;
    const response = await invoke(mcpRoute.POST, "/api/mcp", { body: body, as: agent, headers: { accept: "application/json, text/event-stream" } });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32000, message: expect.stringMatching(/^a message may have at most 65536 bytes besides params\.arguments \(it has \d+\)$/) } });
  });

  it("names at most 10 unknown fields, each cut to 100 characters", () => {
    const body = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`${i}${"f".repeat(200)}`, 0]));
    let message = "";
    try {
      refuseUnknownFields(body, ["args"], "a call request");
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/^unknown fields ("\d+f+…", ){9}"\d+f+…" and 20 more; a call request has args$/);
    expect(message.length).toBeLessThan(1200);
  });

  it("cuts any error message to 2,000 characters and leaves out megabytes of details", async () => {
    const response = errorResponse(new AppError("bad_request", `no skill named ${JSON.stringify("s".repeat(50_000))}`, { echoed: "d".repeat(100_000) }));
    const { error } = (await response.json()) as { error: { message: string; details: unknown } };
    // `no skill named "` (16 characters), 50,000 s and the closing quote: 50,017 characters, 2,000 kept.
    expect(error.message).toBe(`no skill named "${"s".repeat(2000 - 16)}… (${50_017 - 2000} more characters)`);
    expect(error.details).toEqual({ omitted: "the details are 100013 characters long; they are left out" });
  });
});

describe("event streams", () => {
  it("answer at once for a quiet call: a first comment carries the headers before any line exists", async () => {
    // The page said "connecting" for as long as a running call printed nothing: no byte, so no headers, went out.
    const started = await requestCall("mover", { args: {}, persona: "confirming" }, operator.headers);
    const { call } = (await started.json()) as { call: Call };
    const client = new AbortController();
    try {
      const stream = await invoke(eventsRoute.GET, `/api/v1/calls/${call.id}/events?lastEventId=5`, { method: "GET", params: { id: call.id }, as: operator.headers, signal: client.signal });
      expect(stream.status).toBe(200);
      const first = await stream.body!.getReader().read();
      expect(new TextDecoder().decode(first.value)).toBe(": connected\n\n");
    } finally {
      client.abort();
    }
  });

  it(`lets one person hold at most ${CALL_STREAMS_PER_HOLDER_MAX} open, answering 429 with Retry-After past it, and frees a slot when one closes`, async () => {
    const started = await requestCall("mover", { args: {}, persona: "confirming" }, operator.headers);
    expect(started.status).toBe(202);
    const { call } = (await started.json()) as { call: Call };
    const open = (signal: AbortSignal) => invoke(eventsRoute.GET, `/api/v1/calls/${call.id}/events`, { method: "GET", params: { id: call.id }, as: operator.headers, signal });
    const clients = Array.from({ length: CALL_STREAMS_PER_HOLDER_MAX }, () => new AbortController());
    try {
      for (const client of clients) expect((await open(client.signal)).status).toBe(200);
      const refused = await open(new AbortController().signal);
      expect(refused.status).toBe(429);
      expect(refused.headers.get("retry-after")).toBe("5");
      expect(await errorOf(refused)).toEqual({
        code: "rate_limited",
        message: `at most ${CALL_STREAMS_PER_HOLDER_MAX} call event streams may be open at once per person (their API tokens included); close one first`,
        details: { retryAfterSeconds: 5 },
      });
      // Nor through a token of theirs: an operator makes tokens at will (17 of them held all 256).
      const token = await createToken("default", operator.headers);
      const viaToken = await invoke(eventsRoute.GET, `/api/v1/calls/${call.id}/events`, { method: "GET", params: { id: call.id }, as: token, signal: new AbortController().signal });
      expect(viaToken.status).toBe(429);
      // Another person still gets one.
      expect((await invoke(eventsRoute.GET, `/api/v1/calls/${call.id}/events`, { method: "GET", params: { id: call.id }, signal: clients[0]!.signal })).status).toBe(200);
      clients[1]!.abort();
      const again = new AbortController();
      clients.push(again);
      expect((await open(again.signal)).status).toBe(200);
    } finally {
      for (const client of clients) client.abort();
    }
  });
});

describe("a refused request repeated", () => {
  it("is written once, then once more as a summary counting the repeats", async () => {
    const before = await db().auditEvent.count({ where: { action: "access.refused", actor: operator.email } });
    for (let i = 0; i < 50; i++) {
      const response = await invoke(usersRoute.POST, "/api/v1/users", { as: operator.headers, body: { email: `x${i}@console.local`, password: "x".repeat(16), role: "admin" } });
      expect(response.status).toBe(403);
    }
    const rows = () => db().auditEvent.findMany({ where: { action: "access.refused", actor: operator.email }, orderBy: { id: "asc" }, skip: before });
    expect((await rows()).map((row) => JSON.parse(row.details) as Record<string, unknown>)).toEqual([
      { method: "POST", path: "/api/v1/users", code: "forbidden", reason: `this needs the admin role; ${operator.email} is an operator`, address: "unknown" },
    ]);
    await flushRefusalRepeats();
    const [, summary] = (await rows()).map((row) => JSON.parse(row.details) as Record<string, unknown>);
    expect(summary).toEqual({ method: "POST", path: "/api/v1/users", code: "forbidden", reason: `this needs the admin role; ${operator.email} is an operator`, address: "unknown", repeated: 49, since: expect.any(String) });
  });
});

describe("refused requests that vary their path", () => {
  it(`are written ${REFUSALS_PER_SOURCE} at a time per source, the rest counted in one summary`, async () => {
    const signRoute = await import("@/app/api/v1/approvals/[id]/sign/route");
    const flooder = await createPerson("operator");
    await flushRefusalRepeats();
    for (let i = 0; i < 60; i++) {
      const id = `flood-${i}-${"r".repeat(i)}`;
      const response = await invoke(signRoute.POST, `/api/v1/approvals/${id}/sign`, { as: flooder.headers, body: {}, params: { id } });
      expect(response.status).toBe(403);
    }
    const rows = () => db().auditEvent.findMany({ where: { action: "access.refused", actor: flooder.email }, orderBy: { id: "asc" } });
    expect(await rows()).toHaveLength(REFUSALS_PER_SOURCE);
    await flushRefusalRepeats();
    const all = await rows();
    expect(all).toHaveLength(REFUSALS_PER_SOURCE + 1);
    expect(JSON.parse(all[REFUSALS_PER_SOURCE]!.details)).toMatchObject({ path: `/api/v1/approvals/flood-59-${"r".repeat(59)}/sign`, code: "forbidden", refusedMore: 60 - REFUSALS_PER_SOURCE, since: expect.any(String) });
  });
});

describe("refused requests from many addresses and tokens", () => {
  it(`count against the person behind them: ${REFUSALS_PER_SOURCE} rows, then one summary, whatever the address or token`, async () => {
    const flooder = await createPerson("operator");
    const tokens = [await createToken("default", flooder.headers), await createToken("default", flooder.headers)];
    await flushRefusalRepeats();
    // The attack: every request from its own 127.x.y.z address wrote its own row (1,992 of 2,000).
    for (let i = 0; i < 90; i++) {
      const sender = i % 3 === 0 ? flooder.headers : tokens[i % 3 === 1 ? 0 : 1]!;
      const response = await invoke(usersRoute.POST, "/api/v1/users", { as: sender, headers: { "x-skill-console-peer": `127.0.${i >> 8}.${i & 255}` }, body: { email: `y${i}@console.local`, password: "x".repeat(16), role: "admin" } });
      expect(response.status).toBe(403);
    }
    const rows = () => db().auditEvent.findMany({ where: { action: "access.refused", actor: { contains: flooder.email } }, orderBy: { id: "asc" } });
    expect(await rows()).toHaveLength(REFUSALS_PER_SOURCE);
    await flushRefusalRepeats();
    const all = await rows();
    expect(all).toHaveLength(REFUSALS_PER_SOURCE + 1);
    expect(JSON.parse(all[REFUSALS_PER_SOURCE]!.details)).toMatchObject({ path: "/api/v1/users", code: "forbidden", refusedMore: 90 - REFUSALS_PER_SOURCE, address: "127.0.0.89" });
  });

  it(`are written at most ${REFUSALS_WRITTEN_PER_WINDOW} in a window in all when anonymous from thousands of addresses, the rest in one summary`, async () => {
    await flushRefusalRepeats();
    const before = await db().auditEvent.count({ where: { action: "access.refused", actor: "anonymous" } });
    const count = REFUSALS_WRITTEN_PER_WINDOW + 300;
    for (let i = 0; i < count; i++) {
      // A sign-in from another origin: refused before anyone is identified.
      const response = await invoke(loginRoute.POST, "/api/v1/auth/login", {
        as: "anonymous",
        headers: { "x-skill-console-peer": `127.1.${i >> 8}.${i & 255}`, origin: "http://evil.example" },
        body: { email: "nobody@console.local", password: "x" },
      });
      expect(response.status).toBe(403);
    }
    const written = (await db().auditEvent.count({ where: { action: "access.refused", actor: "anonymous" } })) - before;
    expect(written).toBeLessThanOrEqual(REFUSALS_WRITTEN_PER_WINDOW);
    await flushRefusalRepeats();
    const rows = await db().auditEvent.findMany({ where: { action: "access.refused", actor: "anonymous" }, orderBy: { id: "asc" }, skip: before });
    const summaries = rows.map((row) => JSON.parse(row.details) as Record<string, unknown>).filter((details) => "refusedMore" in details);
    expect(summaries).toHaveLength(1);
    expect(rows.length).toBe(written + 1);
    expect((summaries[0]!.refusedMore as number) + written).toBe(count);
  });
});

describe("a refusal about an approval that exists", () => {
  it("is written even after its person spent their budget, and even while anonymous refusals fill the window", async () => {
    const { sign, requestWaitingCall } = await import("../api/approvals-fixtures");
    const requester = await createPerson("approver");
    const { approvalId } = await requestWaitingCall("wiper", "dual", requester.headers);
    await flushRefusalRepeats();
    // The attack: 20 other refusals first, then the self-signature was only counted, with another refusal's details.
    const tokenRoute = await import("@/app/api/v1/worker-tokens/[id]/route");
    for (let i = 0; i < REFUSALS_PER_SOURCE + 5; i++) {
      expect((await invoke(tokenRoute.DELETE, `/api/v1/worker-tokens/pre${i}`, { method: "DELETE", as: requester.headers, params: { id: `pre${i}` } })).status).toBe(403);
    }
    // And anonymous refusals from as many addresses as fill the window.
    for (let i = 0; i < REFUSALS_WRITTEN_PER_WINDOW + 20; i++) {
      await invoke(loginRoute.POST, "/api/v1/auth/login", { as: "anonymous", headers: { "x-skill-console-peer": `127.2.${i >> 8}.${i & 255}`, origin: "http://evil.example" }, body: {} });
    }
    expect((await sign(approvalId!, requester.headers)).status).toBe(403);
    const written = await db().auditEvent.findMany({ where: { action: "access.refused", approvalId: approvalId! } });
    expect(written.map((row) => [row.actor, JSON.parse(row.details).reason])).toEqual([[requester.email, "the requester cannot sign their own call"]]);
    // The person's other refusals past the budget are in one summary that says what they were.
    await flushRefusalRepeats();
    const summary = (await db().auditEvent.findMany({ where: { action: "access.refused", actor: requester.email }, orderBy: { id: "asc" } }))
      .map((row) => JSON.parse(row.details) as Record<string, unknown>)
      .find((details) => "refusedMore" in details);
    expect(summary).toMatchObject({ refusedMore: 5, samples: [{ action: "access.refused", method: "DELETE", path: `/api/v1/worker-tokens/pre${REFUSALS_PER_SOURCE}`, code: "forbidden", reason: `this needs the admin role; ${requester.email} is an approver` }] });
  });

  it("anonymous repeats' summaries count against the window: the trail grows at most about one window a window", async () => {
    await flushRefusalRepeats();
    const before = await db().auditEvent.count({ where: { actor: "anonymous" } });
    // The attack: 250 addresses, each refusal sent twice: every repeat summary was a row past the window (~280 a window).
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 250; i++) {
        await invoke(loginRoute.POST, "/api/v1/auth/login", { as: "anonymous", headers: { "x-skill-console-peer": `127.3.${i >> 8}.${i & 255}`, origin: "http://evil.example" }, body: {} });
      }
    }
    await flushRefusalRepeats();
    const rows = (await db().auditEvent.count({ where: { actor: "anonymous" } })) - before;
    // The window's rows and one summary for everyone.
    expect(rows).toBeLessThanOrEqual(REFUSALS_WRITTEN_PER_WINDOW + 1);
  });
});

afterAll(async () => {
  await flushRefusalRepeats();
});

describe("a worker reporting 50,000 skills", () => {
  it("registers without stalling the event loop for seconds, and its listing neither", async () => {
    const { registerProtocolWorker } = await import("../helpers/protocol-worker");
    const { worstStall } = await import("../helpers/stall-watch");
    const workersRoute = await import("@/app/api/v1/workers/route");
    const workerSkillsRoute = await import("@/app/api/v1/workers/[id]/skills/route");
    const skills = Array.from({ length: 50_000 }, (_, i) => ({ name: `skill-${String(i).padStart(5, "0")}-${"x".repeat(120)}`, digest: "a".repeat(64), available: i % 2 === 0, reason: i % 2 === 0 ? null : "no" }));
    // The attack: 6.3 s of stall registering, then 0.6–1.6 s on every listing. The bound only catches that.
    const { value: worker, stallMs: registering } = await worstStall(() => registerProtocolWorker("hoarder", skills));
    expect(registering).toBeLessThan(1000);
    expect(await db().workerSkill.count({ where: { workerId: worker.session.id } })).toBe(50_000);
    const { value: listed, stallMs: listing } = await worstStall(async () => (await invoke(workersRoute.GET, "/api/v1/workers")).json() as Promise<{ workers: WorkerInfo[] }>);
    expect(listing).toBeLessThan(1000);
    const hoarder = listed.workers.find((entry) => entry.id === worker.session.id)!;
    // The listing carries counts and the first 200 skills, unavailable ones first; never all 50,000.
    expect(hoarder.skillCounts).toEqual({ held: 50_000, unavailable: 25_000, drifted: 0 });
    expect(hoarder.skills).toHaveLength(WORKER_LISTED_SKILLS);
    expect(hoarder.skills.map((skill) => skill.name)).toEqual(Array.from({ length: WORKER_LISTED_SKILLS }, (_, i) => skills[2 * i + 1]!.name));
    expect(hoarder.skills[0]).toEqual({ name: `skill-00001-${"x".repeat(120)}`, digest: "a".repeat(64), available: false, reason: "no" });
    // The whole list, a page at a time, by name.
    const names: string[] = [];
    for (let after = "", pages = 0; ; pages++) {
      expect(pages).toBeLessThan(101);
      const response = await invoke(workerSkillsRoute.GET, `/api/v1/workers/${worker.session.id}/skills?limit=500&after=${encodeURIComponent(after)}`, { method: "GET", params: { id: worker.session.id } });
      expect(response.status).toBe(200);
      const page = (await response.json()) as WorkerSkillPage;
      names.push(...page.skills.map((skill) => skill.name));
      if (page.next === null) break;
      after = page.next;
    }
    expect(names).toEqual(skills.map((skill) => skill.name));
    // A part of the name, LIKE's wildcards matched as themselves.
    const filtered = await invoke(workerSkillsRoute.GET, `/api/v1/workers/${worker.session.id}/skills?q=${encodeURIComponent("4321-")}`, { method: "GET", params: { id: worker.session.id } });
    expect(((await filtered.json()) as WorkerSkillPage).skills.map((skill) => skill.name)).toEqual([4321, 14321, 24321, 34321, 44321].map((i) => skills[i]!.name));
    const wildcards = await invoke(workerSkillsRoute.GET, `/api/v1/workers/${worker.session.id}/skills?q=${encodeURIComponent("%_")}`, { method: "GET", params: { id: worker.session.id } });
    expect(await wildcards.json()).toEqual({ skills: [], next: null });
    const tooMany = await invoke(workerSkillsRoute.GET, `/api/v1/workers/${worker.session.id}/skills?limit=501`, { method: "GET", params: { id: worker.session.id } });
    expect(tooMany.status).toBe(400);
    expect(await errorOf(tooMany)).toMatchObject({ code: "bad_request", message: "limit must be an integer from 1 to 500" });
    const unknown = await invoke(workerSkillsRoute.GET, "/api/v1/workers/nope/skills", { method: "GET", params: { id: "nope" } });
    expect(unknown.status).toBe(404);
    // A report refused for one bad item names it by its index in the whole list.
    const bad = skills.map((skill, i) => (i === 43_210 ? { ...skill, digest: "not hex" } : skill));
    await expect(worker.client.reportSkills(worker.session.id, bad)).rejects.toMatchObject({ status: 400, message: expect.stringContaining("/skills/43210/digest") });
  }, 120_000);
});

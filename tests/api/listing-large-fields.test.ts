/**
 * Listings leave out args, results and digest inputs larger than LISTING_INLINE_MAX_BYTES (64 KiB),
 * with their sizes (issue 10 point 1: 20 calls of 8 MB args made a 160 MB answer and a 200 ms
 * synchronous read; a page of 500 could exhaust the heap). The call's own answer still carries them
 * whole, byte for byte as validated and stored.
 */
import { beforeAll, describe, expect, it } from "vitest";
import * as approvalsRoute from "@/app/api/v1/approvals/route";
import * as callsRoute from "@/app/api/v1/calls/route";
import * as callRoute from "@/app/api/v1/calls/[id]/route";
import * as eventsRoute from "@/app/api/v1/calls/[id]/events/route";
import { dropOrphanPayloads } from "@/lib/server/calls/call-payloads";
import { db } from "@/lib/server/db";
import type { Approval } from "@/lib/types/approval";
import type { Call } from "@/lib/types/call";
import { createPersonaRow, requestCall, requestWaitingCall, sign } from "./approvals-fixtures";
import { invoke, readEvents } from "../helpers/route-client";
import { createPerson } from "../helpers/test-people";
import { setUpTestConsole, writeSkill } from "../helpers/test-console";

const BIG = "x".repeat(70_000);

beforeAll(async () => {
  const testConsole = await setUpTestConsole({});
  writeSkill(testConsole.root, "echo", { name: "echo", schema: { type: "object" } }, "cat");
  writeSkill(testConsole.root, "wipe", { name: "wipe", class: "dangerous", schema: { type: "object" } }, "cat");
  await createPersonaRow("two_keys", "dual-sign-required");
});

async function listed(path: string): Promise<Call[]> {
  const response = await invoke(callsRoute.GET, path);
  expect(response.status).toBe(200);
  return ((await response.json()) as { calls: Call[] }).calls;
}

describe("GET /api/v1/calls", () => {
  it("carries small args and results inline, and leaves large ones out with their sizes in bytes", async () => {
    const small = (await (await requestCall("echo", { args: { n: 1 } })).json()) as { call: Call };
    const large = (await (await requestCall("echo", { args: { s: BIG } })).json()) as { call: Call };
    expect(small.call).toMatchObject({ status: "succeeded", args: { n: 1 }, result: { n: 1 } });
    // The call's own answer is whole.
    expect(large.call).toMatchObject({ status: "succeeded", args: { s: BIG }, result: { s: BIG } });
    expect(large.call.omitted).toBeUndefined();

    const calls = await listed("/api/v1/calls?skill=echo");
    const bytes = JSON.stringify({ s: BIG }).length;
    expect(calls.find((call) => call.id === small.call.id)).toMatchObject({ args: { n: 1 }, result: { n: 1 } });
    expect(calls.find((call) => call.id === small.call.id)?.omitted).toBeUndefined();
    expect(calls.find((call) => call.id === large.call.id)).toMatchObject({ args: null, result: null, omitted: { args: bytes, result: bytes } });

    // Stored once in parts, not in the row every state change rewrites (call-payloads.ts).
    expect((await db().call.findUniqueOrThrow({ where: { id: large.call.id } })).args).toBe("");
    expect((await db().callPayload.findMany({ where: { callId: large.call.id }, orderBy: { part: "asc" } })).map((part) => [part.kind, part.part]).sort()).toEqual([["args", 0]]);
    expect((await db().call.findUniqueOrThrow({ where: { id: small.call.id } })).args).toBe('{"n":1}');

    const detail = await invoke(callRoute.GET, `/api/v1/calls/${large.call.id}?events=0`, { params: { id: large.call.id } });
    const { call } = (await detail.json()) as { call: Call };
    expect(call.args).toEqual({ s: BIG });
    expect(call.result).toEqual({ s: BIG });
  });
});

describe("GET /api/v1/approvals", () => {
  it("leaves a large call's args and digest input out of the list; signing answers them whole", async () => {
    const requester = await createPerson("approver");
    const signer = await createPerson("approver");
    const { call, approvalId } = await requestWaitingCall("wipe", "two_keys", requester.headers, { s: BIG });
    const response = await invoke(approvalsRoute.GET, `/api/v1/approvals?callId=${call.id}`);
    const { approvals } = (await response.json()) as { approvals: Approval[] };
    expect(approvals).toHaveLength(1);
    expect(approvals[0]).toMatchObject({ id: approvalId, digestInput: null, call: { id: call.id, args: null, omitted: { args: JSON.stringify({ s: BIG }).length } } });
    expect(approvals[0]!.digestInputBytes).toBeGreaterThan(70_000);

    expect((await db().approval.findUniqueOrThrow({ where: { id: approvalId! } })).digestInput).toBe("");
    expect((await db().callPayload.findMany({ where: { callId: call.id } })).map((part) => part.kind).sort()).toEqual(["args", "digestInput"]);

    // The signature checks the digest against the args read back from their parts: it still matches.
    const signed = await sign(approvalId!, signer.headers);
    expect(signed.status).toBe(200);
    const { approval } = (await signed.json()) as { approval: Approval };
    expect(approval.call.args).toEqual({ s: BIG });
    expect(approval.digestInput).toMatchObject({ skill: "wipe", args: { s: BIG } });
    expect(approval.digestInputBytes).toBeUndefined();
    expect(approval.status).toBe("pending");
    expect(approval.signatures.map((signature) => signature.by)).toEqual([signer.email]);
  });
});

describe("args in parts", () => {
  it("splits 1.2 million characters in parts that keep every surrogate pair whole, and runs the call with them exactly", async () => {
    // A part ends every 512 Ki code units; after `{"tt":"` (7) each "😀" (two of them) starts at an odd
    // index, so the pair at the first boundary would be cut without the split rule.
    const text = "😀".repeat(600_000);
    const { call } = (await (await requestCall("echo", { args: { tt: text } })).json()) as { call: Call };
    expect(call.status).toBe("succeeded");
    expect(call.result).toEqual({ tt: text });
    const parts = await db().callPayload.findMany({ where: { callId: call.id, kind: "args" }, orderBy: { part: "asc" } });
    expect(parts.map((part) => part.part)).toEqual([0, 1, 2]);
    expect(parts.map((part) => part.text).join("")).toBe(JSON.stringify({ tt: text }));
  });

  it("drops parts no stored call names when the console starts", async () => {
    await db().callPayload.create({ data: { callId: "no-such-call", kind: "args", part: 0, text: "{}" } });
    expect(await dropOrphanPayloads()).toBe(1);
    expect(await db().callPayload.count({ where: { callId: "no-such-call" } })).toBe(0);
  });
});

describe("GET /api/v1/calls/{id}/events", () => {
  it("ends the stream of a call whose args are stored in parts with its end event, args whole (PostgreSQL read them synchronously and failed)", async () => {
    const large = (await (await requestCall("echo", { args: { s: BIG } })).json()) as { call: Call };
    expect(large.call.status).toBe("succeeded");
    const stream = await invoke(eventsRoute.GET, `/api/v1/calls/${large.call.id}/events`, { params: { id: large.call.id } });
    expect(stream.status).toBe(200);
    const events = readEvents(stream);
    let event = await events.next();
    while (event && event.event !== "end") event = await events.next();
    expect(event?.event).toBe("end");
    const { call } = JSON.parse(event!.data) as { call: Call };
    expect(call).toMatchObject({ id: large.call.id, status: "succeeded", args: { s: BIG }, result: { s: BIG } });
    expect(await events.next()).toBeNull();
  });
});

/**
 * A flood of stderr reaches the console whole and in order (DESIGN.md: the stderr timeline keeps up
 * to SKILL_STDERR_LINE_LIMIT lines): a child that writes 30,000 lines at once and exits leaves far more
 * lines buffered on its worker than one report (or the finish report) may carry; the worker sends them
 * in full reports before the finish, and the call ends `succeeded` with every line stored once.
 */
import { beforeAll, describe, expect, it } from "vitest";
import * as callRoute from "@/app/api/v1/calls/[id]/route";
import { db } from "@/lib/server/db";
import type { Call, CallWithEvents } from "@/lib/types/call";
import { requestCall } from "../api/approvals-fixtures";
import { invoke } from "../helpers/route-client";
import { setUpTestConsole, writeSkill } from "../helpers/test-console";

const LINES = 30_000;

beforeAll(async () => {
  const testConsole = await setUpTestConsole();
  writeSkill(testConsole.root, "flood", { name: "flood", timeout_seconds: 60 }, `seq 1 ${LINES} | sed "s/^/line /" >&2; echo '{"lines": ${LINES}}'`);
});

describe("a stderr flood", () => {
  it("is stored whole, in order, and the call still ends with its result", async () => {
    const { call } = (await (await requestCall("flood", { args: {} })).json()) as { call: Call };
    expect(call).toMatchObject({ status: "succeeded", result: { lines: LINES } });
    const rows = await db().callEvent.findMany({ where: { callId: call.id }, orderBy: { seq: "asc" }, select: { seq: true, stream: true, line: true } });
    // started, the lines, the end line.
    expect(rows).toHaveLength(LINES + 2);
    expect(rows.map((row) => row.seq)).toEqual(Array.from({ length: LINES + 2 }, (_, index) => index + 1));
    const stderr = rows.filter((row) => row.stream === "stderr").map((row) => row.line);
    expect(stderr).toEqual(Array.from({ length: LINES }, (_, index) => `line ${index + 1}`));
    expect(call.eventCount).toBe(LINES + 2);

    // GET /api/v1/calls/{id} writes the timeline a page at a time (1,000 rows per read): all of it,
    // in order, across the pages; afterSeq and limit cut the same list.
    const read = async (query: string) => ((await (await invoke(callRoute.GET, `/api/v1/calls/${call.id}${query}`, { params: { id: call.id } })).json()) as { call: CallWithEvents }).call;
    const whole = await read("");
    expect(whole.eventCount).toBe(LINES + 2);
    expect(whole.events.map((event) => [event.seq, event.line])).toEqual(rows.map((row) => [row.seq, row.line]));
    const page = await read("?afterSeq=1500&limit=2500");
    expect(page.events.map((event) => event.seq)).toEqual(Array.from({ length: 2500 }, (_, index) => 1501 + index));
    expect((await read("?afterSeq=29990")).events.map((event) => event.seq)).toEqual(Array.from({ length: 12 }, (_, index) => 29991 + index));
    expect((await read("?events=none")).events).toEqual([]);
  }, 60_000);
});

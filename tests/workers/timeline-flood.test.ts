/**
 * A flood of stderr reaches the console whole and in order (DESIGN.md: the stderr timeline keeps up
 * to SKILL_STDERR_LINE_LIMIT lines): a child that writes 30,000 lines at once and exits leaves far more
 * lines buffered on its worker than one report (or the finish report) may carry; the worker sends them
 * in full reports before the finish, and the call ends `succeeded` with every line stored once.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/server/db";
import type { Call } from "@/lib/types/call";
import { requestCall } from "../api/approvals-fixtures";
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
  }, 60_000);
});

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { isLiveState, parseProcStat, readProcStat } from "./proc-stat";

const fields = (state: string, pgrp: number, start: number) =>
  `${state} 1 ${pgrp} 7 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 ${start} 1000 200`;

describe("parseProcStat", () => {
  it.each([
    { text: `42 (bash) ${fields("S", 40, 12345)}\n`, stat: { pid: 42, state: "S", pgrp: 40, session: 7, startTime: "12345" } },
    { text: `7 (a) b (c)) ${fields("Z", 7, 99)}`, stat: { pid: 7, state: "Z", pgrp: 7, session: 7, startTime: "99" } },
    { text: `8 (two words) ${fields("R", 8, 1)}`, stat: { pid: 8, state: "R", pgrp: 8, session: 7, startTime: "1" } },
    { text: "", stat: null },
    { text: "12 (short) S 1 2", stat: null },
  ])("parses $text", ({ text, stat }) => {
    expect(parseProcStat(text)).toEqual(stat);
  });

  it("reads this process, with field 22 as the start time", () => {
    const raw = readFileSync("/proc/self/stat", "utf8");
    const expected = raw.slice(raw.lastIndexOf(")") + 2).split(" ")[19];
    expect(readProcStat(process.pid)).toMatchObject({ pid: process.pid, state: "R", startTime: expected });
  });

  it("treats zombies and dead entries as not live", () => {
    expect(["R", "S", "D", "T", "Z", "X"].map(isLiveState)).toEqual([true, true, true, true, false, false]);
  });
});

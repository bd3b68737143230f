import { describe, expect, it } from "vitest";
import { rescanSummary } from "./loader-report-view";

describe("rescanSummary", () => {
  it("says what a rescan registered, and what failed or was skipped only when something was", () => {
    const entry = { path: "/s/ops/x/SKILL.md", root: "/s", name: null, reason: "parse: bad", warnings: [] };
    expect(rescanSummary({ count: 1, failed: [], skipped: [] })).toBe("Rescanned: 1 skill registered.");
    expect(rescanSummary({ count: 2, failed: [entry], skipped: [] })).toBe("Rescanned: 2 skills registered, 1 failed.");
    expect(rescanSummary({ count: 0, failed: [entry, entry], skipped: [entry] })).toBe("Rescanned: 0 skills registered, 2 failed, 1 skipped.");
  });
});

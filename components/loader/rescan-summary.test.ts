import { describe, expect, it } from "vitest";
import type { LoaderScan } from "@/lib/types/skill";
import { rescanSummary, scanChanges, watchSentence } from "./loader-report-view";

describe("rescanSummary", () => {
  it("says what a rescan registered, and what failed or was skipped only when something was", () => {
    const entry = { path: "/s/ops/x/SKILL.md", root: "/s", name: null, reason: "parse: bad", warnings: [] };
    expect(rescanSummary({ count: 1, failed: [], skipped: [] })).toBe("Rescanned: 1 skill registered.");
    expect(rescanSummary({ count: 2, failed: [entry], skipped: [] })).toBe("Rescanned: 2 skills registered, 1 failed.");
    expect(rescanSummary({ count: 0, failed: [entry, entry], skipped: [entry] })).toBe("Rescanned: 0 skills registered, 2 failed, 1 skipped.");
  });
});

describe("scanChanges and watchSentence", () => {
  const scan: LoaderScan = { at: "2026-12-06T12:00:00.000Z", trigger: "watch", durationMs: 9, count: 3, failed: 0, skipped: 0, added: [], addedCount: 0, removed: [], removedCount: 0, changed: [], changedCount: 0, paths: [], pathCount: 0 };

  it("says which skills a scan added, removed and changed, and how many more it did not name", () => {
    expect(scanChanges(scan)).toBe("no skill changed");
    expect(scanChanges({ ...scan, added: ["a", "b"], addedCount: 2, removed: ["c"], removedCount: 1 })).toBe("added a, b; removed c");
    expect(scanChanges({ ...scan, changed: ["d"], changedCount: 31 })).toBe("changed d and 30 more");
    expect(scanChanges({ ...scan, trigger: "start", addedCount: 1 })).toBe("1 skill registered");
  });

  it("says whether the roots are watched, and why not", () => {
    expect(watchSentence({ status: "watching", paths: ["/a"], reason: null })).toBe("Watching 1 folder: a skill changed on disk is picked up within 2 s.");
    expect(watchSentence({ status: "failed", paths: [], reason: "the system's limit of watched folders was reached" })).toBe("Not watching: the system's limit of watched folders was reached.");
    expect(watchSentence({ status: "off", paths: [], reason: "SKILLS_WATCH is false" })).toBe("Not watching: SKILLS_WATCH is false; use Rescan after changing skills on disk.");
  });
});

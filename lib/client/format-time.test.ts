import { describe, expect, it } from "vitest";
import { formatDuration, formatInstantTitle, formatRelative, formatUtcOffset } from "./format-time";

describe("formatUtcOffset", () => {
  it.each([
    [0, "UTC"],
    [60, "UTC+1"],
    [-300, "UTC-5"],
    [330, "UTC+5:30"],
    [-570, "UTC-9:30"],
  ])("%i minutes -> %s", (minutes, label) => {
    expect(formatUtcOffset(minutes)).toBe(label);
  });
});

describe("formatInstantTitle", () => {
  it("ends with the exact UTC instant and is empty without a time", () => {
    expect(formatInstantTitle("2026-11-29T22:21:49.123Z")).toMatch(/ UTC[^·]* · 2026-11-29T22:21:49\.123Z$/);
    expect(formatInstantTitle(null)).toBe("");
    expect(formatInstantTitle("not a date")).toBe("");
  });
});

describe("formatDuration and formatRelative", () => {
  it("use one dash for a missing value", () => {
    expect(formatDuration(null)).toBe("—");
    expect(formatRelative(null)).toBe("—");
  });

  it("scale their units", () => {
    expect(formatDuration(532)).toBe("532 ms");
    expect(formatDuration(2410)).toBe("2.41 s");
    expect(formatDuration(185_000)).toBe("3m 05s");
    expect(formatRelative("2026-01-01T00:00:00Z", Date.parse("2026-01-01T00:05:00Z"))).toBe("5m ago");
  });
});

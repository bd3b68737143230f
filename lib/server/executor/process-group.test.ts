import { describe, expect, it } from "vitest";
import { GROUP_POLL_MS, backoffDelay, groupPollDelay } from "./process-group";

describe("groupPollDelay", () => {
  it("checks a group that was still there after 1, 2, 4, 8 and 16 ms, then every GROUP_POLL_MS", () => {
    expect([0, 1, 2, 3, 4, 5, 6, 40].map(groupPollDelay)).toEqual([1, 2, 4, 8, 16, GROUP_POLL_MS, GROUP_POLL_MS, GROUP_POLL_MS]);
    expect(GROUP_POLL_MS).toBe(25);
  });

  it("treats a negative or fractional attempt as the nearest whole one at or below, never below the first", () => {
    expect([-3, 0.9, 2.5].map(groupPollDelay)).toEqual([1, 1, 4]);
  });
});

describe("backoffDelay", () => {
  it("doubles from 1 ms up to its cap", () => {
    expect([0, 1, 2, 3, 4, 9].map((attempt) => backoffDelay(attempt, 10))).toEqual([1, 2, 4, 8, 10, 10]);
  });
});

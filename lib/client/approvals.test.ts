/**
 * What a change of approvals makes the page read again (the approvals feed, a signature or denial):
 * a call page of a running call once fetched its 200,000-line timeline twice when the feed opened
 * (e2e scale.spec.ts: two GETs of the call, both before the stream).
 */
import { describe, expect, it } from "vitest";
import { approvalChangeConcerns } from "./approvals";
import { queryKeys } from "./query-keys";

describe("approvalChangeConcerns", () => {
  it("reads every calls list again, and a call's own query only while it waits for a person", () => {
    expect(approvalChangeConcerns(queryKeys.calls.list({ status: "awaiting_confirmation", limit: 100 }), [])).toBe(true);
    expect(approvalChangeConcerns(queryKeys.calls.detail("a"), undefined)).toBe(true);
    expect(approvalChangeConcerns(queryKeys.calls.detail("a"), { status: "awaiting_approval" })).toBe(true);
    expect(approvalChangeConcerns(queryKeys.calls.detail("a"), { status: "awaiting_confirmation" })).toBe(true);
    for (const status of ["queued", "running", "succeeded", "failed", "cancelled", "expired", "denied", "interrupted"]) {
      expect(approvalChangeConcerns(queryKeys.calls.detail("a"), { status })).toBe(false);
    }
  });
});

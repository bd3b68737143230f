import { describe, expect, it } from "vitest";
import type { AuditInput } from "../audit/audit-trail";
import { STORED_TEXT_MAX, webhookEventOf } from "./webhook-events";

const AT = new Date("2026-12-06T10:00:00.000Z");

function entry(action: string, more: Partial<AuditInput> = {}): AuditInput {
  return { action, actor: "ann@example.com", callId: "c1", approvalId: "a1", skill: "wiper", ...more };
}

describe("webhookEventOf", () => {
  it.each([
    ["approval.requested", {}, "approval.requested"],
    ["approval.approved", { details: { signers: ["b@x", "c@x"] } }, "approval.decided"],
    ["approval.denied", { details: { reason: "no" } }, "approval.decided"],
    ["approval.void", { details: { reason: "digest changed" } }, "approval.decided"],
    ["approval.expired", {}, "approval.expired"],
    ["pack.enable_requested", { callId: null, details: { packId: "p1", pack: "ops" } }, "approval.requested"],
    ["pack.rollback_requested", { callId: null, details: { packId: "p1", pack: "ops" } }, "approval.requested"],
    ["pack.approval.signed", { callId: null, details: { packId: "p1", pack: "ops" } }, "approval.decided"],
    ["pack.approval.denied", { callId: null, details: { packId: "p1", pack: "ops" } }, "approval.decided"],
    ["pack.approval.void", { callId: null, details: { packId: "p1", pack: "ops" } }, "approval.decided"],
    ["pack.approval.expired", { callId: null, details: { packId: "p1", pack: "ops" } }, "approval.expired"],
    ["call.cancelled", { details: { waited: "approval" } }, "approval.decided"],
    ["call.requested", { details: { decision: "confirm" } }, "call.awaiting_confirmation"],
    ["call.finished", { details: { status: "failed", exitCode: 1, error: "boom" } }, "call.failed"],
    ["call.finished", { details: { status: "timed_out", exitCode: null, error: "timed out" } }, "call.failed"],
    ["call.interrupted", { details: { reason: "worker gone" } }, "call.failed"],
    ["call.failed", { details: { reason: "skill changed" } }, "call.failed"],
  ] as const)("%s %j → %s", (action, more, event) => {
    expect(webhookEventOf(entry(action, more as Partial<AuditInput>), AT)?.event).toBe(event);
  });

  it.each([
    ["call.cancelled", { details: { waited: "confirmation" } }],
    ["call.cancelled", { approvalId: null, details: {} }],
    ["call.requested", { details: { decision: "run" } }],
    ["call.requested", { details: { decision: "dual_sign" } }],
    ["call.finished", { details: { status: "succeeded", exitCode: 0 } }],
    ["call.finished", { details: { status: "cancelled" } }],
    ["approval.signed", {}],
    ["call.started", {}],
    ["call.refused", {}],
    ["secret.created", {}],
    ["webhook.created", {}],
  ] as const)("%s %j tells of nothing", (action, more) => {
    expect(webhookEventOf(entry(action, more as Partial<AuditInput>), AT)).toBeNull();
  });

  it("builds a failed call's payload from the entry, without args, the error cut at STORED_TEXT_MAX", () => {
    const told = webhookEventOf(entry("call.finished", { approvalId: null, details: { status: "failed", exitCode: 2, error: "e".repeat(STORED_TEXT_MAX + 5), args: { disk: "/dev/sda" } } }), AT);
    expect(told).toEqual({
      event: "call.failed",
      payload: { at: "2026-12-06T10:00:00.000Z", actor: "ann@example.com", url: "/calls/c1", call: { id: "c1", skill: "wiper", status: "failed", exitCode: 2, error: `${"e".repeat(STORED_TEXT_MAX)}…` }, approval: null, pack: null },
    });
  });

  it("links a pack's approval to the pack's review page", () => {
    expect(webhookEventOf(entry("pack.enable_requested", { callId: null, details: { packId: "p 1", pack: "ops-pack", version: "2" } }), AT)?.payload).toEqual({
      at: "2026-12-06T10:00:00.000Z",
      actor: "ann@example.com",
      url: "/packs/p%201",
      call: null,
      approval: { id: "a1", kind: "pack" },
      pack: { id: "p 1", name: "ops-pack", action: "enable" },
    });
  });
});

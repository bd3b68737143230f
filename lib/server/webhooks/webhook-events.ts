import type { AuditInput } from "../audit/audit-trail";
import type { WebhookEvent, WebhookPayload } from "@/lib/types/webhook";

/** What an event's delivery is made of, without its id and event (the outbox row's payload; the row holds both). */
export type EventPayload = Omit<WebhookPayload, "id" | "event">;

/**
 * Longest error or reason text the outbox keeps, in characters: more than any secret's value
 * (SECRET_VALUE_MAX_BYTES is 64 KiB of bytes, but a value cut here is masked at the cut too), cut
 * with a trailing `…` that tells the dispatcher to mask the part of a value left at the cut.
 */
export const STORED_TEXT_MAX = 16 * 1024;

/** Statuses of `call.finished` that tell of a failed call. */
const FAILED_STATUSES = new Set(["failed", "timed_out"]);

function text(value: unknown): string | null {
  if (typeof value !== "string") return null;
  return value.length > STORED_TEXT_MAX ? `${value.slice(0, STORED_TEXT_MAX)}…` : value;
}

function callPart(entry: AuditInput, status: string | null, more: { exitCode?: number | null; error?: string | null } = {}): EventPayload["call"] {
  return entry.callId ? { id: entry.callId, skill: entry.skill ?? null, status, ...more } : null;
}

function packPart(entry: AuditInput, action: string | null): EventPayload["pack"] {
  const details = entry.details ?? {};
  return typeof details.packId === "string" ? { id: details.packId, name: text(details.pack), action } : null;
}

/**
 * The webhook event an audit entry tells of, with its payload (DESIGN.md "Integrations": approval
 * requested, decided and expired; calls awaiting confirmation; failed calls), or null for every other
 * entry. Read off the audit entry because every change of a call or approval writes one, in the
 * change's own transaction: the delivery is queued in that same transaction (webhook-outbox.ts), so a
 * change is never told without happening, nor happens without being told. The payload holds ids,
 * names, statuses, times and the error or reason cut to STORED_TEXT_MAX — never args or results.
 * `url` is a path of the console's pages: a requested call approval's card on the Approvals page
 * (where it is signed), else the call's or the pack's page. Pure.
 */
export function webhookEventOf(entry: AuditInput, at: Date): { event: WebhookEvent; payload: EventPayload } | null {
  const details = entry.details ?? {};
  const base = { at: at.toISOString(), actor: entry.actor };
  const callUrl = entry.callId ? `/calls/${encodeURIComponent(entry.callId)}` : "/approvals";
  const packUrl = typeof details.packId === "string" ? `/packs/${encodeURIComponent(details.packId)}` : "/packs";
  const callApproval = (more: Partial<NonNullable<EventPayload["approval"]>> = {}): EventPayload["approval"] => (entry.approvalId ? { id: entry.approvalId, kind: "call", ...more } : null);
  const packApproval = (more: Partial<NonNullable<EventPayload["approval"]>> = {}): EventPayload["approval"] => (entry.approvalId ? { id: entry.approvalId, kind: "pack", ...more } : null);
  switch (entry.action) {
    case "approval.requested":
      // To the approval's card on the Approvals page, where approvers sign or deny it.
      return { event: "approval.requested", payload: { ...base, url: entry.approvalId ? `/approvals#approval-${encodeURIComponent(entry.approvalId)}` : "/approvals", call: callPart(entry, "awaiting_approval"), approval: callApproval({ expiresAt: text(details.expiresAt) }), pack: null } };
    case "approval.approved":
      return {
        event: "approval.decided",
        payload: { ...base, url: callUrl, call: callPart(entry, "queued"), approval: callApproval({ decision: "approved", signers: Array.isArray(details.signers) ? details.signers.filter((s): s is string => typeof s === "string") : [] }), pack: null },
      };
    case "approval.denied":
      return { event: "approval.decided", payload: { ...base, url: callUrl, call: callPart(entry, "denied"), approval: callApproval({ decision: "denied", reason: text(details.reason) }), pack: null } };
    case "approval.void":
      return { event: "approval.decided", payload: { ...base, url: callUrl, call: callPart(entry, "expired"), approval: callApproval({ decision: "void", reason: text(details.reason) }), pack: null } };
    case "approval.expired":
      return { event: "approval.expired", payload: { ...base, url: callUrl, call: callPart(entry, "expired"), approval: callApproval({ expiresAt: text(details.expiresAt) }), pack: null } };
    case "pack.enable_requested":
    case "pack.rollback_requested":
      return { event: "approval.requested", payload: { ...base, url: packUrl, call: null, approval: packApproval(), pack: packPart(entry, entry.action === "pack.enable_requested" ? "enable" : "rollback") } };
    case "pack.approval.signed":
      return { event: "approval.decided", payload: { ...base, url: packUrl, call: null, approval: packApproval({ decision: "approved", signers: [entry.actor] }), pack: packPart(entry, null) } };
    case "pack.approval.denied":
    case "pack.approval.void":
      return {
        event: "approval.decided",
        payload: { ...base, url: packUrl, call: null, approval: packApproval({ decision: entry.action === "pack.approval.denied" ? "denied" : "void", reason: text(details.reason) }), pack: packPart(entry, null) },
      };
    case "pack.approval.expired":
      return { event: "approval.expired", payload: { ...base, url: packUrl, call: null, approval: packApproval(), pack: packPart(entry, null) } };
    case "call.cancelled":
      // Its requester (or an operator) cancelled a call that waited for signatures: its approval is decided.
      if (details.waited !== "approval") return null;
      return { event: "approval.decided", payload: { ...base, url: callUrl, call: callPart(entry, "cancelled"), approval: callApproval({ decision: "denied", reason: `cancelled by ${entry.actor}` }), pack: null } };
    case "call.requested":
      if (details.decision !== "confirm") return null;
      return { event: "call.awaiting_confirmation", payload: { ...base, url: callUrl, call: callPart(entry, "awaiting_confirmation"), approval: null, pack: null } };
    case "call.finished": {
      const status = typeof details.status === "string" ? details.status : null;
      if (status === null || !FAILED_STATUSES.has(status)) return null;
      const exitCode = typeof details.exitCode === "number" ? details.exitCode : null;
      return { event: "call.failed", payload: { ...base, url: callUrl, call: callPart(entry, status, { exitCode, error: text(details.error) }), approval: null, pack: null } };
    }
    case "call.interrupted":
    case "call.failed":
      return {
        event: "call.failed",
        payload: { ...base, url: callUrl, call: callPart(entry, entry.action === "call.interrupted" ? "interrupted" : "failed", { exitCode: null, error: text(details.reason) }), approval: null, pack: null },
      };
    default:
      return null;
  }
}

import { WEBHOOK_EVENTS, type DeliveredEvent, type WebhookEvent } from "@/lib/types/webhook";

/** Each event's name on the page and what it means, in WEBHOOK_EVENTS order. */
export const EVENT_LABELS: Readonly<Record<DeliveredEvent, { label: string; meaning: string }>> = {
  "approval.requested": { label: "Approval requested", meaning: "a dangerous call or pack version waits for signatures" },
  "approval.decided": { label: "Approval decided", meaning: "approved by the last signature, denied, or void" },
  "approval.expired": { label: "Approval expired", meaning: "no one signed in time" },
  "call.awaiting_confirmation": { label: "Awaiting confirmation", meaning: "an agent's mutating call waits for a person" },
  "call.failed": { label: "Call failed", meaning: "failed, timed out or interrupted" },
  ping: { label: "Test", meaning: "sent from this page" },
};

/** Every subscribable event, in order. */
export const ALL_EVENTS: readonly WebhookEvent[] = WEBHOOK_EVENTS;

/**
 * The events a webhook may be sent (DESIGN.md "Integrations", notifications): a dangerous call's (or a
 * pack's) approval requested, decided (approved, denied, void) or expired; an agent's mutating call
 * waiting for a person's confirmation; a call that ended failed, timed out or interrupted. `ping` is
 * the test delivery an admin sends from the Webhooks page (never subscribed to).
 */
export const WEBHOOK_EVENTS = ["approval.requested", "approval.decided", "approval.expired", "call.awaiting_confirmation", "call.failed"] as const;

/** One of WEBHOOK_EVENTS. */
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** A subscribed event, or the test delivery. */
export type DeliveredEvent = WebhookEvent | "ping";

/** How a delivery's body is shaped: the console's own signed JSON, or a Slack incoming-webhook message. */
export type WebhookFormat = "json" | "slack";

/**
 * A webhook destination as `GET /api/v1/webhooks` serves it (admin): never its secret. Times ISO-8601.
 * `lastDelivery` is the newest delivery's status and when it was made; `failing` counts deliveries
 * that are pending after a failed attempt, or gave up.
 */
export interface WebhookInfo {
  id: string;
  url: string;
  events: WebhookEvent[];
  format: WebhookFormat;
  enabled: boolean;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
  lastDelivery: { status: DeliveryStatus; at: string; httpStatus: number | null } | null;
  failing: number;
}

/** pending (not yet delivered; retried with backoff) · delivered (a 2xx answer) · failed (gave up after a day, or the webhook was deleted). */
export type DeliveryStatus = "pending" | "delivered" | "failed";

/** One delivery of an event to a webhook, as the delivery log shows it (`GET /api/v1/webhooks/{id}/deliveries`). */
export interface WebhookDeliveryInfo {
  id: number;
  webhookId: string;
  event: DeliveredEvent;
  status: DeliveryStatus;
  attempts: number;
  /** The HTTP status of the last answer; null when none came (refused, timed out). */
  lastStatus: number | null;
  lastError: string | null;
  createdAt: string;
  lastAttemptAt: string | null;
  /** When the next attempt is due (pending only). */
  nextAttemptAt: string | null;
  deliveredAt: string | null;
  /** The JSON body sent (the console's format, whatever the webhook's format). */
  payload: WebhookPayload;
}

/**
 * The JSON body of a delivery in the `json` format, signed with HMAC-SHA256 of the exact bytes in the
 * `X-Console-Signature: sha256=<hex>` header. It names what happened and links to it; it never holds
 * args, results or secret values (text such as an error is masked with every stored secret's value).
 */
export interface WebhookPayload {
  /** The delivery's id: the same on every retry of it, so a receiver can drop repeats. */
  id: number;
  event: DeliveredEvent;
  /** When it happened. */
  at: string;
  /** Who did it: a person's email, `token:<name> (<owner>)`, or `system`. */
  actor: string;
  /** The page that shows it (absolute when CONSOLE_PUBLIC_URL is set). */
  url: string;
  call: { id: string; skill: string | null; status: string | null; exitCode?: number | null; error?: string | null } | null;
  approval: { id: string; kind: "call" | "pack"; decision?: "approved" | "denied" | "void"; reason?: string | null; expiresAt?: string | null; signers?: string[] } | null;
  pack: { id: string; name: string | null; action: string | null } | null;
}

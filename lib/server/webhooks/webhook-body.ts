import { createHmac } from "node:crypto";
import type { WebhookDelivery as DeliveryRow } from "@prisma/client";
import type { WebhookFormat, WebhookPayload } from "@/lib/types/webhook";
import { maskJsonValue, type SecretMask } from "../secrets/secret-masking";
import type { EventPayload } from "./webhook-events";

/** Longest wait between two attempts of a delivery, in ms. */
export const RETRY_DELAY_MAX_MS = 60 * 60 * 1000;
/** How long a delivery is retried after its event, in ms (DESIGN.md "Integrations": up to 24 h). */
export const RETRY_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * Delay before the next attempt after `attempts` failed ones (1 or more), in ms: `firstMs`
 * (WEBHOOK_RETRY_FIRST_MS, within 30 s), then three times longer each time, at most RETRY_DELAY_MAX_MS
 * (issue 14: the first retry within 30 s, then growing, for up to 24 h). Pure.
 */
export function retryDelayMs(attempts: number, firstMs: number): number {
  return Math.min(RETRY_DELAY_MAX_MS, firstMs * 3 ** Math.max(0, attempts - 1));
}

/**
 * When the next attempt of a delivery made at `createdAt` is due after `attempts` failed ones at `now`
 * (ms since the epoch), or null when it would fall past RETRY_WINDOW_MS after the event: it gives up. Pure.
 */
export function nextAttemptAt(createdAt: number, attempts: number, now: number, firstMs: number): number | null {
  const due = now + retryDelayMs(attempts, firstMs);
  return due > createdAt + RETRY_WINDOW_MS ? null : due;
}

/** `sha256=` + hex HMAC-SHA256 of `body` under `secret`: the X-Console-Signature header (DESIGN.md "Integrations"). Pure. */
export function signatureOf(secret: string, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(body, "utf8").digest("hex")}`;
}

/** The console page `path` as an absolute URL under `publicUrl` (CONSOLE_PUBLIC_URL), or the path when it is unset. Pure. */
export function pageUrl(path: string, publicUrl: string | null): string {
  return publicUrl ? `${publicUrl}${path}` : path;
}

/** Text safe inside Slack mrkdwn: `&`, `<` and `>` escaped as Slack asks. Pure. */
function slackText(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** What happened, in one line of plain text (the Slack message's first line). Pure. */
export function summaryOf(payload: WebhookPayload): string {
  const subject = payload.pack ? `pack ${payload.pack.name ?? payload.pack.id}` : payload.call ? `${payload.call.skill ?? "a skill"} (call ${payload.call.id})` : "the console";
  switch (payload.event) {
    case "approval.requested":
      return `Approval requested by ${payload.actor}: ${payload.pack ? `${payload.pack.action ?? "enable"} ` : ""}${subject}${payload.approval?.expiresAt ? `, expires ${payload.approval.expiresAt}` : ""}`;
    case "approval.decided":
      return `Approval ${payload.approval?.decision ?? "decided"} by ${payload.actor}: ${subject}${payload.approval?.reason ? ` — ${payload.approval.reason}` : ""}`;
    case "approval.expired":
      return `Approval expired: ${subject}`;
    case "call.awaiting_confirmation":
      return `Confirmation needed: ${subject}, requested by ${payload.actor}`;
    case "call.failed": {
      const call = payload.call;
      const how = [call?.status, call?.exitCode !== null && call?.exitCode !== undefined ? `exit code ${call.exitCode}` : null].filter(Boolean).join(", ");
      return `Call ${call?.status === "timed_out" ? "timed out" : call?.status ?? "failed"}: ${subject}${how ? ` (${how})` : ""}${call?.error ? ` — ${call.error}` : ""}`;
    }
    case "ping":
      return `Test delivery from the skill console, sent by ${payload.actor}`;
  }
}

/**
 * The exact body of a delivery: the payload as JSON for `json`, or a Slack incoming-webhook message
 * (`text`, and blocks with a button to the page when `payload.url` is absolute — Slack refuses a
 * relative link) for `slack`. Pure.
 */
export function deliveryBody(format: WebhookFormat, payload: WebhookPayload): string {
  if (format === "json") return JSON.stringify(payload);
  const summary = slackText(summaryOf(payload));
  const absolute = /^https?:\/\//.test(payload.url);
  const text = absolute ? `${summary} <${payload.url}|Open in the console>` : `${summary} (${slackText(payload.url)})`;
  const blocks: unknown[] = [{ type: "section", text: { type: "mrkdwn", text: absolute ? summary : text } }];
  if (absolute) blocks.push({ type: "actions", elements: [{ type: "button", text: { type: "plain_text", text: payload.approval && payload.event === "approval.requested" ? "Review and sign" : "Open in the console" }, url: payload.url }] });
  return JSON.stringify({ text, blocks });
}

/** Longest error or reason text a delivery carries, in characters (the console's page has the whole). */
export const PAYLOAD_TEXT_MAX = 500;

function shortened(text: string | null): string | null {
  return text !== null && text.length > PAYLOAD_TEXT_MAX ? `${text.slice(0, PAYLOAD_TEXT_MAX)}…` : text;
}

/**
 * `payload` with `mask` (allSecrets: every stored secret's value) applied to every string in it, a
 * text the outbox cut (STORED_TEXT_MAX, a trailing `…`) masked at the cut too (DESIGN.md
 * "Integrations": a delivery never carries secret values; a person's deny reason may hold one). Pure.
 */
export function maskedPayload(payload: EventPayload, mask: SecretMask): EventPayload {
  return maskJsonValue(payload, (text) => (text.endsWith("…") ? `${mask(text.slice(0, -1), { cutBefore: false, cutAfter: true })}…` : mask(text))) as EventPayload;
}

/**
 * A delivery's payload exactly as it is sent (and shown in the delivery log): with its id and event,
 * its link absolute under `publicUrl` (CONSOLE_PUBLIC_URL), masked again with `mask` (the secrets as
 * they are now; the outbox stored it masked with those of its event: webhook-outbox.ts), and the error
 * and reason cut to PAYLOAD_TEXT_MAX after masking. Pure.
 */
export function sentPayload(row: Pick<DeliveryRow, "id" | "event" | "payload">, mask: SecretMask, publicUrl: string | null): WebhookPayload {
  const masked = maskedPayload(JSON.parse(row.payload) as EventPayload, mask);
  return {
    id: row.id,
    event: row.event as WebhookPayload["event"],
    ...masked,
    url: pageUrl(masked.url, publicUrl),
    call: masked.call ? { ...masked.call, ...(masked.call.error !== undefined ? { error: shortened(masked.call.error) } : {}) } : null,
    approval: masked.approval ? { ...masked.approval, ...(masked.approval.reason !== undefined ? { reason: shortened(masked.approval.reason) } : {}) } : null,
  };
}

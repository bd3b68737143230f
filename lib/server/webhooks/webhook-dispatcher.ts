import type { Webhook as WebhookRow, WebhookDelivery as DeliveryRow } from "@prisma/client";
import { agreedNow } from "../database-clock";
import { db } from "../db";
import { statements } from "../db-statements";
import { config } from "../env";
import { allSecrets } from "../secrets/all-secrets-mask";
import { openSecret } from "../secrets/secret-box";
import { secretKey } from "../secrets/secret-key";
import { deliveryBody, nextAttemptAt, sentPayload, signatureOf } from "./webhook-body";
import { webhookSecretName } from "./webhook-store";
import { setWebhookWake } from "./webhook-wake";

/** Deliveries one console sends at once, to as many destinations (one attempt per destination at a time). */
const IN_FLIGHT_MAX = 16;
/** How often the dispatcher looks for due deliveries without being woken, in ms (retries; other replicas' events). */
const POLL_MS = 2000;
/** How long delivered and given-up deliveries stay in the log, in ms. */
export const DELIVERY_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
/** How often the log is pruned of deliveries past DELIVERY_RETENTION_MS, in ms. */
const PRUNE_EVERY_MS = 60 * 60 * 1000;
/** Characters of a destination's answer kept in the log. */
const ANSWER_TEXT_MAX = 300;

const DISPATCHER_KEY = Symbol.for("skill-console.webhook-dispatcher");
const store = globalThis as unknown as { [DISPATCHER_KEY]?: { inFlight: number; looking: boolean; again: boolean; timer: NodeJS.Timeout | null } };

/** What one attempt came to: a 2xx answer delivers; anything else is retried (or gives up). */
interface AttemptOutcome {
  delivered: boolean;
  status: number | null;
  error: string | null;
}

/**
 * Starts this console's webhook dispatcher (DESIGN.md "Integrations"; issue 14 point 1): it sends the
 * deliveries the outbox queued (webhook-outbox.ts) as they come due — woken when one is queued here,
 * and every POLL_MS for retries and other replicas' events — at most IN_FLIGHT_MAX at once and one
 * per destination (claimDue). Each
 * replica may run one: a delivery is claimed with a compare-and-set lease, so one console makes each
 * attempt. Every PRUNE_EVERY_MS it drops delivered and given-up deliveries older than
 * DELIVERY_RETENTION_MS, so the log stays bounded. Idempotent.
 */
export function startWebhookDispatcher(): void {
  if (store[DISPATCHER_KEY]) return;
  const state = (store[DISPATCHER_KEY] = { inFlight: 0, looking: false, again: false, timer: null as NodeJS.Timeout | null });
  const look = (): void => void lookForDue(state);
  setWebhookWake(look);
  state.timer = setInterval(look, POLL_MS);
  state.timer.unref();
  setInterval(() => void pruneDeliveries(), PRUNE_EVERY_MS).unref();
  look();
  void pruneDeliveries();
}

/** Deletes delivered and given-up deliveries made more than DELIVERY_RETENTION_MS ago. Never throws (logs). */
export async function pruneDeliveries(): Promise<number> {
  try {
    const cutoff = new Date((await agreedNow()).getTime() - DELIVERY_RETENTION_MS);
    return await statements().$executeRaw`DELETE FROM "WebhookDelivery" WHERE "status" <> 'pending' AND "createdAt" < ${cutoff}`;
  } catch (error) {
    console.error("webhooks: pruning the delivery log failed:", (error as Error).message);
    return 0;
  }
}

async function lookForDue(state: { inFlight: number; looking: boolean; again: boolean }): Promise<void> {
  if (state.looking) {
    state.again = true;
    return;
  }
  state.looking = true;
  try {
    do {
      state.again = false;
      const room = IN_FLIGHT_MAX - state.inFlight;
      if (room <= 0) break;
      const claimed = await claimDue(room);
      for (const row of claimed) {
        state.inFlight++;
        void attempt(row).finally(() => {
          state.inFlight--;
          void lookForDue(state);
        });
      }
    } while (state.again);
  } catch (error) {
    console.error("webhooks: looking for due deliveries failed:", (error as Error).message);
  } finally {
    state.looking = false;
  }
}

/**
 * Claims at most `count` due deliveries for one attempt each, at most one per webhook and none of a
 * webhook with an attempt in flight (a destination that hangs holds one slot, never the others, and
 * its deliveries go in order), the oldest first: sets their lease (the attempt's timeout and 10 s
 * more) and counts the attempt, with a compare-and-set on status and lease so that two replicas never
 * both take one. Returns the claimed rows.
 */
async function claimDue(count: number): Promise<DeliveryRow[]> {
  const now = await agreedNow();
  const leaseUntil = new Date(now.getTime() + config().webhookTimeoutMs + 10_000);
  return statements().$queryRaw<DeliveryRow[]>`
    UPDATE "WebhookDelivery" SET "leaseUntil" = ${leaseUntil}, "attempts" = "attempts" + 1, "lastAttemptAt" = ${now}
    WHERE "id" IN (
      SELECT MIN("id") FROM "WebhookDelivery" AS "due"
      WHERE "status" = 'pending' AND "nextAttemptAt" <= ${now} AND ("leaseUntil" IS NULL OR "leaseUntil" < ${now})
        AND NOT EXISTS (
          SELECT 1 FROM "WebhookDelivery" AS "held"
          WHERE "held"."webhookId" = "due"."webhookId" AND "held"."status" = 'pending' AND "held"."leaseUntil" >= ${now}
        )
      GROUP BY "webhookId" ORDER BY MIN("id") LIMIT ${count}
    ) AND "status" = 'pending' AND ("leaseUntil" IS NULL OR "leaseUntil" < ${now})
    RETURNING *`;
}

/** Makes one claimed attempt and records what it came to. Never throws (a failure is logged). */
async function attempt(row: DeliveryRow): Promise<void> {
  try {
    const webhook = await db().webhook.findUnique({ where: { id: row.webhookId } });
    const outcome: AttemptOutcome =
      !webhook ? { delivered: false, status: null, error: "the webhook was deleted" }
      : !webhook.enabled && row.event !== "ping" ? { delivered: false, status: null, error: "the webhook is disabled" }
      : await send(webhook, row);
    const final = !webhook || (!webhook.enabled && row.event !== "ping");
    await record(row, outcome, final);
  } catch (error) {
    console.error(`webhooks: delivery ${row.id} failed to be made:`, (error as Error).message);
  }
}

/**
 * POSTs one delivery to its webhook: the body (webhook-body.ts) signed with the webhook's secret in
 * `X-Console-Signature`, with `X-Console-Event` and `X-Console-Delivery`; redirects are not followed
 * (a 3xx is a failed attempt); at most WEBHOOK_TIMEOUT_MS; the answer's first ANSWER_TEXT_MAX characters kept.
 */
async function send(webhook: WebhookRow, row: DeliveryRow): Promise<AttemptOutcome> {
  let secret: string;
  try {
    secret = openSecret(secretKey(), webhookSecretName(webhook.id), { ciphertext: webhook.secretCiphertext, keyId: webhook.secretKeyId });
  } catch (error) {
    return { delivered: false, status: null, error: `the webhook's secret cannot be opened: ${(error as Error).message}` };
  }
  const body = deliveryBody(webhook.format === "slack" ? "slack" : "json", sentPayload(row, (await allSecrets()).mask, config().publicUrl));
  const timeoutMs = config().webhookTimeoutMs;
  try {
    const response = await fetch(webhook.url, {
      method: "POST",
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
      headers: {
        "content-type": "application/json",
        "user-agent": "skill-console-webhooks/1",
        "x-console-event": row.event,
        "x-console-delivery": String(row.id),
        "x-console-signature": signatureOf(secret, body),
      },
      body,
    });
    const answer = await answerText(response);
    if (response.status >= 200 && response.status < 300) return { delivered: true, status: response.status, error: null };
    const what = response.status >= 300 && response.status < 400 ? `redirected to ${response.headers.get("location") ?? "?"} (not followed)` : `answered ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`;
    return { delivered: false, status: response.status, error: answer ? `${what}: ${answer}` : what };
  } catch (error) {
    return { delivered: false, status: null, error: failureText(error, timeoutMs) };
  }
}

/** At most ANSWER_TEXT_MAX characters of an answer's body, the rest left unread. */
async function answerText(response: Response): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  try {
    while (bytes < ANSWER_TEXT_MAX * 4) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      bytes += value.byteLength;
    }
  } catch {
    // An answer cut short: what came is enough.
  } finally {
    void reader.cancel().catch(() => undefined);
  }
  const text = Buffer.concat(chunks).toString("utf8").replace(/\s+/g, " ").trim();
  return text.length > ANSWER_TEXT_MAX ? `${text.slice(0, ANSWER_TEXT_MAX)}…` : text;
}

/** Why a request got no answer, in words: timed out, refused, not found… */
function failureText(error: unknown, timeoutMs: number): string {
  const name = (error as Error)?.name;
  if (name === "TimeoutError" || name === "AbortError") return `no answer within ${timeoutMs} ms`;
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  if (cause?.message) return `could not connect: ${cause.message}`;
  return `could not send: ${(error as Error)?.message ?? String(error)}`;
}

/**
 * Records an attempt: delivered; or, unless `final`, due again after the backoff (webhook-body.ts
 * nextAttemptAt) while within a day of the event; else failed. Compare-and-set on the lease this
 * console set, so a late answer after the lease lapsed (another console took the attempt) changes nothing.
 */
async function record(row: DeliveryRow, outcome: AttemptOutcome, final: boolean): Promise<void> {
  const now = await agreedNow();
  const next = outcome.delivered || final ? null : nextAttemptAt(row.createdAt.getTime(), row.attempts, now.getTime(), config().webhookRetryFirstMs);
  const end: { status: "pending" | "delivered" | "failed"; error: string | null } =
    outcome.delivered ? { status: "delivered", error: null }
    : next !== null ? { status: "pending", error: outcome.error }
    : final ? { status: "failed", error: outcome.error }
    : { status: "failed", error: `${outcome.error ?? "failed"}; gave up after ${row.attempts} attempt${row.attempts === 1 ? "" : "s"} (deliveries are retried for a day)` };
  // Untouched columns keep their value: deliveredAt only when delivered, nextAttemptAt only when due again.
  await statements().$executeRaw`UPDATE "WebhookDelivery"
    SET "status" = ${end.status}, "lastStatus" = ${outcome.status}, "lastError" = ${end.error}, "leaseUntil" = ${null},
      "deliveredAt" = ${outcome.delivered ? now : null}, "nextAttemptAt" = COALESCE(${next === null ? null : new Date(next)}, "nextAttemptAt")
    WHERE "id" = ${row.id} AND "status" = 'pending' AND "leaseUntil" = ${row.leaseUntil}`;
}

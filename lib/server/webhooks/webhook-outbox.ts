import type { SqlRunner } from "../db-statements";
import type { DeliveredEvent } from "@/lib/types/webhook";
import type { EventPayload } from "./webhook-events";
import { wakeWebhookDispatcher } from "./webhook-wake";

/**
 * Queues one delivery of `event` for every enabled webhook subscribed to it, through `writer` — the
 * transaction of the change it tells of (an outbox: written and committed with the change, sent
 * afterwards by the dispatcher, retried until delivered; webhook-dispatcher.ts). `at` is when the
 * event happened: the delivery is due then. `onlyWebhook` queues it for that webhook alone, subscribed
 * or not (the test delivery, `ping`). Resolves the number of deliveries queued.
 */
export async function queueWebhookDeliveries(writer: Pick<SqlRunner, "$executeRaw">, event: DeliveredEvent, payload: EventPayload, at: Date, onlyWebhook?: string): Promise<number> {
  const body = JSON.stringify(payload);
  const queued = onlyWebhook
    ? await writer.$executeRaw`INSERT INTO "WebhookDelivery" ("webhookId", "event", "payload", "status", "attempts", "nextAttemptAt", "createdAt")
        SELECT "id", ${event}, ${body}, 'pending', 0, ${at}, ${at} FROM "Webhook" WHERE "id" = ${onlyWebhook}`
    : // `events` is a JSON array of names: a name is matched with its quotes, so one never matches a longer one.
      await writer.$executeRaw`INSERT INTO "WebhookDelivery" ("webhookId", "event", "payload", "status", "attempts", "nextAttemptAt", "createdAt")
        SELECT "id", ${event}, ${body}, 'pending', 0, ${at}, ${at} FROM "Webhook" WHERE "enabled" = true AND "events" LIKE ${`%"${event}"%`}`;
  // After the caller's transaction commits (a wake-up that comes first finds nothing; the next poll does).
  if (queued > 0) wakeWebhookDispatcher();
  return queued;
}

import type { SqlRunner } from "../db-statements";
import { allSecrets } from "../secrets/all-secrets-mask";
import type { DeliveredEvent } from "@/lib/types/webhook";
import { maskedPayload } from "./webhook-body";
import type { EventPayload } from "./webhook-events";
import { wakeWebhookDispatcher } from "./webhook-wake";

/**
 * Queues one delivery of `event` for every enabled webhook subscribed to it, through `writer` — the
 * transaction of the change it tells of (an outbox: written and committed with the change, sent
 * afterwards by the dispatcher, retried until delivered; webhook-dispatcher.ts). The payload is stored
 * masked with every secret's value as it is now (allSecrets, read through `writer`), so a value pasted
 * into a deny reason is never kept, even if the secret is deleted before the delivery is made. `at`
 * is when the event happened: the delivery is due then. `onlyWebhook` queues it for that webhook
 * alone, subscribed or not (the test delivery, `ping`). Resolves the number of deliveries queued; with
 * no subscribed webhook it reads nothing more than the webhooks.
 */
export async function queueWebhookDeliveries(writer: Pick<SqlRunner, "$executeRaw" | "$queryRaw">, event: DeliveredEvent, payload: EventPayload, at: Date, onlyWebhook?: string): Promise<number> {
  const targets = onlyWebhook
    ? await writer.$queryRaw<Array<{ id: string }>>`SELECT "id" FROM "Webhook" WHERE "id" = ${onlyWebhook}`
    : // `events` is a JSON array of names: a name is matched with its quotes, so one never matches a longer one.
      await writer.$queryRaw<Array<{ id: string }>>`SELECT "id" FROM "Webhook" WHERE "enabled" = true AND "events" LIKE ${`%"${event}"%`}`;
  if (targets.length === 0) return 0;
  const body = JSON.stringify(maskedPayload(payload, (await allSecrets(writer)).mask));
  for (const { id } of targets) {
    await writer.$executeRaw`INSERT INTO "WebhookDelivery" ("webhookId", "event", "payload", "status", "attempts", "nextAttemptAt", "createdAt")
      VALUES (${id}, ${event}, ${body}, 'pending', 0, ${at}, ${at})`;
  }
  // After the caller's transaction commits (a wake-up that comes first finds nothing; the next poll does).
  wakeWebhookDispatcher();
  return targets.length;
}

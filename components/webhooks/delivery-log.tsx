"use client";

import { Badge, type BadgeTone } from "@/components/ui/badge";
import { CodeBlock } from "@/components/ui/code-block";
import { DateTime } from "@/components/ui/date-time";
import { LoadFailed } from "@/components/ui/load-failed";
import { SkeletonRows } from "@/components/ui/skeleton";
import { useWebhookDeliveries } from "@/lib/client/use-webhooks";
import type { WebhookDeliveryInfo } from "@/lib/types/webhook";
import { EVENT_LABELS } from "./webhook-events";

const STATUS_TONES: Record<WebhookDeliveryInfo["status"], BadgeTone> = { delivered: "green", pending: "amber", failed: "red" };

/** What a delivery's status means in words: delivered, given up, waiting for a retry after a failed attempt, being sent, or queued. */
function statusText(delivery: WebhookDeliveryInfo): string {
  if (delivery.status === "delivered") return "delivered";
  if (delivery.status === "failed") return "gave up";
  if (delivery.lastError !== null) return "retrying";
  return delivery.attempts === 0 ? "queued" : "sending";
}

/** One delivery: event, status, attempts, the last answer, when it was made and is next due, and the payload as sent (folded). */
function DeliveryRow({ delivery }: { delivery: WebhookDeliveryInfo }) {
  return (
    <li className="space-y-1.5 px-4 py-3 text-sm" data-testid="webhook-delivery">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
        <Badge tone={STATUS_TONES[delivery.status]} dot>
          {statusText(delivery)}
        </Badge>
        <span className="font-medium text-zinc-900">{EVENT_LABELS[delivery.event]?.label ?? delivery.event}</span>
        <span className="font-mono text-xs text-zinc-500">#{delivery.id}</span>
        <span className="text-xs text-zinc-600">
          {delivery.attempts} attempt{delivery.attempts === 1 ? "" : "s"}
        </span>
        <span className="text-xs text-zinc-600">
          queued <DateTime iso={delivery.createdAt} />
        </span>
      </div>
      {delivery.lastStatus !== null || delivery.lastError ? (
        <p className={delivery.status === "delivered" ? "text-xs text-zinc-600" : "text-xs break-words text-red-700"}>
          Last answer: {delivery.lastError ?? `${delivery.lastStatus}`}
          {delivery.lastAttemptAt ? (
            <>
              {" "}
              (<DateTime iso={delivery.lastAttemptAt} />)
            </>
          ) : null}
        </p>
      ) : null}
      {delivery.nextAttemptAt && delivery.lastError !== null ? (
        <p className="text-xs text-zinc-600">
          Next attempt <DateTime iso={delivery.nextAttemptAt} />
        </p>
      ) : null}
      <details>
        <summary className="cursor-pointer text-xs text-zinc-600">Payload</summary>
        <CodeBlock text={JSON.stringify(delivery.payload, null, 2)} label={`Payload of delivery ${delivery.id}`} wrap className="mt-1 max-h-72" />
      </details>
    </li>
  );
}

/**
 * The delivery log of one webhook (DESIGN.md "Integrations"): its 50 newest deliveries, newest first,
 * read again every 5 s while shown — status, attempts, last answer, next attempt, payload.
 */
export function DeliveryLog({ webhookId }: { webhookId: string }) {
  const deliveries = useWebhookDeliveries(webhookId);
  if (deliveries.isPending) return <SkeletonRows rows={3} className="p-4" />;
  if (deliveries.isError) {
    return (
      <LoadFailed title="Could not load the delivery log" error={deliveries.error} onRetry={() => void deliveries.refetch()} className="m-4" />
    );
  }
  if (deliveries.data.length === 0) return <p className="px-4 py-3 text-sm text-zinc-600">Nothing sent yet. Send a test to check the address answers.</p>;
  return (
    <ul className="divide-y divide-zinc-100" aria-label="Deliveries">
      {deliveries.data.map((delivery) => (
        <DeliveryRow key={delivery.id} delivery={delivery} />
      ))}
    </ul>
  );
}

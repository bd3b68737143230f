"use client";

import { useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { DateTime } from "@/components/ui/date-time";
import { useSendTestDelivery, useUpdateWebhook } from "@/lib/client/use-webhooks";
import type { WebhookInfo } from "@/lib/types/webhook";
import { DeliveryLog } from "./delivery-log";
import { EVENT_LABELS } from "./webhook-events";

/**
 * One webhook: its address, format, events, whether it is enabled, its last delivery and how many
 * deliveries are failing; Send test, Enable/Disable and Delete (the page confirms); the delivery log
 * folds open in place. A failed action's message is shown on the card.
 */
export function WebhookCard({ webhook, onDelete }: { webhook: WebhookInfo; onDelete: (webhook: WebhookInfo) => void }) {
  const [open, setOpen] = useState(false);
  const update = useUpdateWebhook();
  const test = useSendTestDelivery();
  const logId = `webhook-log-${webhook.id}`;
  const failure = update.error ?? test.error;
  return (
    <Card aria-label={`Webhook ${webhook.url}`} data-testid="webhook-card">
      <div className="space-y-2 px-4 py-3">
        <div className="flex flex-wrap items-start justify-between gap-2">
          <p className="min-w-0 font-mono text-[13px] break-all text-zinc-900">{webhook.url}</p>
          <div className="flex shrink-0 flex-wrap gap-1.5">
            <Badge tone={webhook.enabled ? "green" : "neutral"} dot>
              {webhook.enabled ? "enabled" : "disabled"}
            </Badge>
            <Badge tone="blue">{webhook.format === "slack" ? "Slack" : "JSON, signed"}</Badge>
            {webhook.failing > 0 ? <Badge tone="red">{webhook.failing} failing</Badge> : null}
          </div>
        </div>
        <ul className="flex flex-wrap gap-1.5" aria-label="Events">
          {webhook.events.map((event) => (
            <li key={event}>
              <Badge title={EVENT_LABELS[event].meaning}>{EVENT_LABELS[event].label}</Badge>
            </li>
          ))}
        </ul>
        <p className="text-xs text-zinc-600">
          Added by {webhook.createdBy} <DateTime iso={webhook.createdAt} />
          {" · "}
          {webhook.lastDelivery ? (
            <>
              last delivery {webhook.lastDelivery.status}
              {webhook.lastDelivery.httpStatus !== null ? ` (${webhook.lastDelivery.httpStatus})` : ""} <DateTime iso={webhook.lastDelivery.at} />
            </>
          ) : (
            "nothing sent yet"
          )}
        </p>
        <div className="flex flex-wrap gap-2 pt-1">
          <Button size="sm" aria-expanded={open} aria-controls={logId} onClick={() => setOpen((value) => !value)}>
            {open ? "Hide deliveries" : "Deliveries"}
          </Button>
          <Button size="sm" pending={test.isPending} onClick={() => test.mutate(webhook.id, { onSuccess: () => setOpen(true) })}>
            Send test
          </Button>
          <Button size="sm" pending={update.isPending} onClick={() => update.mutate({ id: webhook.id, enabled: !webhook.enabled })}>
            {webhook.enabled ? "Disable" : "Enable"}
          </Button>
          <Button size="sm" variant="danger" onClick={() => onDelete(webhook)}>
            Delete
          </Button>
        </div>
        {failure ? (
          <p role="alert" className="text-xs text-red-700">
            {failure.message}
          </p>
        ) : null}
      </div>
      {open ? (
        <div id={logId} className="border-t border-zinc-200">
          <DeliveryLog webhookId={webhook.id} />
        </div>
      ) : null}
    </Card>
  );
}

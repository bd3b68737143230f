"use client";

import { useState } from "react";
import { AdminOnly } from "@/components/layout/admin-only";
import { PageHeader } from "@/components/layout/page-header";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { ConfirmDialog } from "@/components/ui/dialog";
import { EmptyState } from "@/components/ui/empty-state";
import { LoadFailed } from "@/components/ui/load-failed";
import { SkeletonRows } from "@/components/ui/skeleton";
import { useDeleteWebhook, useWebhooks } from "@/lib/client/use-webhooks";
import type { WebhookInfo } from "@/lib/types/webhook";
import { CreateWebhookForm } from "./create-webhook-form";
import { NewWebhookSecretBox } from "./new-webhook-secret-box";
import { WebhookCard } from "./webhook-card";

/** Placeholder of the webhooks list while it loads. */
export function WebhooksSkeleton() {
  return (
    <Card>
      <SkeletonRows rows={4} className="p-4" />
    </Card>
  );
}

/**
 * The Webhooks page body (DESIGN.md "Integrations"; admins only, others read "Admins only"): the form
 * that adds a destination, its secret shown once, and every destination with its delivery log, Send
 * test, Enable/Disable and Delete (confirmed first: the log goes with it).
 */
export function WebhooksPage() {
  return (
    <AdminOnly
      header={<PageHeader title="Webhooks" description="Where approvers are told of work: approvals requested, decided and expired, calls awaiting confirmation, failed calls." />}
      skeleton={<WebhooksSkeleton />}
      refusal="Only an admin sees and configures where the console sends its notifications."
    >
      <WebhooksPageBody />
    </AdminOnly>
  );
}

/** What an admin sees of the Webhooks page below its header. */
function WebhooksPageBody() {
  const webhooks = useWebhooks();
  const remove = useDeleteWebhook();
  const [created, setCreated] = useState<{ webhook: WebhookInfo; secret: string } | null>(null);
  const [deleting, setDeleting] = useState<WebhookInfo | null>(null);

  return (
    <>
      <div className="space-y-4">
        <Card aria-labelledby="new-webhook-title">
          <CardHeader title="Add a webhook" titleId="new-webhook-title" description="A JSON POST signed with HMAC-SHA256, or a Slack message; retried with backoff for a day." />
          <CardBody>
            <CreateWebhookForm onCreated={setCreated} />
          </CardBody>
        </Card>
        {created ? <NewWebhookSecretBox webhook={created.webhook} secret={created.secret} onDismiss={() => setCreated(null)} /> : null}
        {webhooks.isPending ? (
          <WebhooksSkeleton />
        ) : webhooks.isError ? (
          <LoadFailed title="Could not load the webhooks" error={webhooks.error} onRetry={() => void webhooks.refetch()} />
        ) : webhooks.data.length === 0 ? (
          <EmptyState title="No webhooks yet">
            Add an address above — a chat&apos;s incoming webhook, an incident tool, your own receiver — and approvers hear of a dangerous call the moment it waits for
            their signature, without watching this console.
          </EmptyState>
        ) : (
          <ul className="space-y-3" aria-label="Webhooks">
            {webhooks.data.map((webhook) => (
              <li key={webhook.id}>
                <WebhookCard webhook={webhook} onDelete={setDeleting} />
              </li>
            ))}
          </ul>
        )}
      </div>
      <ConfirmDialog
        open={deleting !== null}
        title="Delete this webhook?"
        confirmLabel="Delete webhook"
        danger
        pending={remove.isPending}
        onClose={() => {
          remove.reset();
          setDeleting(null);
        }}
        onConfirm={() => deleting && remove.mutate(deleting.id, { onSuccess: () => setDeleting(null) })}
      >
        <p className="break-all">
          Nothing more is sent to <span className="font-mono">{deleting?.url}</span>, and its delivery log is deleted with it. Deliveries not yet made are dropped.
        </p>
        {remove.isError ? <p className="mt-2 text-red-700">{remove.error.message}</p> : null}
      </ConfirmDialog>
    </>
  );
}

"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { WebhookDeliveryInfo, WebhookEvent, WebhookFormat, WebhookInfo } from "@/lib/types/webhook";
import { fetchJson } from "./fetch-json";
import { queryKeys } from "./query-keys";

/** How often the webhooks and an open delivery log are read again, in ms: retries change them with no one acting. */
const WEBHOOKS_REFRESH_MS = 5000;

/** Every webhook (`GET /api/v1/webhooks`, admin), oldest first, never a secret; read again every WEBHOOKS_REFRESH_MS. */
export function useWebhooks(enabled = true) {
  return useQuery({
    queryKey: queryKeys.webhooks.list(),
    queryFn: ({ signal }) => fetchJson<{ webhooks: WebhookInfo[] }>("/api/v1/webhooks", { signal }).then((body) => body.webhooks),
    enabled,
    refetchInterval: WEBHOOKS_REFRESH_MS,
  });
}

/** The newest deliveries of one webhook (`GET /api/v1/webhooks/{id}/deliveries?limit=50`), read again every WEBHOOKS_REFRESH_MS while shown. */
export function useWebhookDeliveries(id: string, enabled = true) {
  return useQuery({
    queryKey: queryKeys.webhooks.deliveries(id),
    queryFn: ({ signal }) => fetchJson<{ deliveries: WebhookDeliveryInfo[] }>(`/api/v1/webhooks/${encodeURIComponent(id)}/deliveries?limit=50`, { signal }).then((body) => body.deliveries),
    enabled,
    refetchInterval: WEBHOOKS_REFRESH_MS,
  });
}

/** What creating a webhook takes (`POST /api/v1/webhooks`). */
export interface CreateWebhookInput {
  url: string;
  events: WebhookEvent[];
  format: WebhookFormat;
}

/**
 * Creates a webhook (admin in person) and resolves to `{webhook, secret}`: the secret is in this answer
 * only. Rejects with ApiError `bad_request` (a bad address, no event) or `forbidden`.
 */
export function useCreateWebhook() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: CreateWebhookInput) => fetchJson<{ webhook: WebhookInfo; secret: string }>("/api/v1/webhooks", { method: "POST", body: input }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.webhooks.all }),
  });
}

/** Changes a webhook (`PATCH /api/v1/webhooks/{id}`: address, events, format, enabled) and resolves to it. Rejects with ApiError `bad_request` or `not_found`. */
export function useUpdateWebhook() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, ...change }: { id: string; url?: string; events?: WebhookEvent[]; format?: WebhookFormat; enabled?: boolean }) =>
      fetchJson<{ webhook: WebhookInfo }>(`/api/v1/webhooks/${encodeURIComponent(id)}`, { method: "PATCH", body: change }).then((body) => body.webhook),
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.webhooks.all }),
  });
}

/** Deletes a webhook and its delivery log (`DELETE /api/v1/webhooks/{id}`) and resolves to it as it was. Rejects with ApiError `not_found`. */
export function useDeleteWebhook() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => fetchJson<{ webhook: WebhookInfo }>(`/api/v1/webhooks/${encodeURIComponent(id)}`, { method: "DELETE" }).then((body) => body.webhook),
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.webhooks.all }),
  });
}

/** Queues a test (`ping`) delivery to one webhook (`POST /api/v1/webhooks/{id}/test`) and resolves to the delivery. */
export function useSendTestDelivery() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => fetchJson<{ delivery: WebhookDeliveryInfo }>(`/api/v1/webhooks/${encodeURIComponent(id)}/test`, { method: "POST" }).then((body) => body.delivery),
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.webhooks.all }),
  });
}

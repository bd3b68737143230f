import { WebhooksSkeleton } from "@/components/webhooks/webhooks-page";

/** Route loading state of `/webhooks`: the webhooks list's skeleton. */
export default function Loading() {
  return <WebhooksSkeleton />;
}

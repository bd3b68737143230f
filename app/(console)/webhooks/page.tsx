import type { Metadata } from "next";
import { WebhooksPage } from "@/components/webhooks/webhooks-page";

/** Page title. */
export const metadata: Metadata = { title: "Webhooks" };

/** `/webhooks` (admin): where approvers are told of work — destinations, their secrets shown once, delivery logs. */
export default function Page() {
  return <WebhooksPage />;
}

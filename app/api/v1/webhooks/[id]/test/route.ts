import { apiRoute } from "@/lib/server/http/api-route";
import { sendTestDelivery } from "@/lib/server/webhooks/webhook-store";

/**
 * `POST /api/v1/webhooks/{id}/test` (admin, a person) → 202 `{delivery}`: a `ping` delivery queued for
 * this webhook, enabled or not, sent and retried like any other; 404 for an unknown id.
 */
export const POST = apiRoute(
  async (_request: Request, context: { params: Promise<{ id: string }> }, identity) => {
    const { id } = await context.params;
    return Response.json({ delivery: await sendTestDelivery(identity, id) }, { status: 202 });
  },
  { role: "admin", person: "send test deliveries" },
);

import { apiRoute, intParam } from "@/lib/server/http/api-route";
import { listDeliveries } from "@/lib/server/webhooks/webhook-store";

/**
 * `GET /api/v1/webhooks/{id}/deliveries?limit=…&before=…` (admin) → 200 `{deliveries: [Delivery]}`,
 * newest first: status, attempts, last answer, next attempt and the payload as sent (DESIGN.md
 * "Integrations": the delivery log). `limit` 1–200 (default 50), ids below `before`. 404 for an unknown webhook.
 */
export const GET = apiRoute(
  async (request: Request, context: { params: Promise<{ id: string }> }) => {
    const { id } = await context.params;
    const url = new URL(request.url);
    return Response.json({ deliveries: await listDeliveries(id, { limit: intParam(url, "limit"), before: intParam(url, "before") }) });
  },
  { role: "admin" },
);

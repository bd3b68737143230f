import { apiRoute } from "@/lib/server/http/api-route";
import { parseRequestBody } from "@/lib/server/http/request-body";
import { deleteWebhook, getWebhook, updateWebhook, type WebhookChange } from "@/lib/server/webhooks/webhook-store";
import { WEBHOOK_BODY_MAX_BYTES, WEBHOOK_CHANGE_SCHEMA } from "@/lib/validation/webhook-requests";

/** `GET /api/v1/webhooks/{id}` (admin) → 200 `{webhook}`; 404 for an unknown id. */
export const GET = apiRoute(
  async (_request: Request, context: { params: Promise<{ id: string }> }) => {
    const { id } = await context.params;
    return Response.json({ webhook: await getWebhook(id) });
  },
  { role: "admin" },
);

/**
 * `PATCH /api/v1/webhooks/{id}` `{url?, events?, format?, enabled?}` (admin, a person) → 200
 * `{webhook}`; 400 for a bad field, 404 for an unknown id.
 */
export const PATCH = apiRoute(
  async (request: Request, context: { params: Promise<{ id: string }> }, identity) => {
    const { id } = await context.params;
    const change = await parseRequestBody<WebhookChange>(request, WEBHOOK_CHANGE_SCHEMA, "a webhook change", WEBHOOK_BODY_MAX_BYTES);
    return Response.json({ webhook: await updateWebhook(identity, id, change) });
  },
  { role: "admin", person: "configure webhooks" },
);

/** `DELETE /api/v1/webhooks/{id}` (admin, a person) → 200 `{webhook}` as it was, its delivery log gone; 404 for an unknown id. */
export const DELETE = apiRoute(
  async (_request: Request, context: { params: Promise<{ id: string }> }, identity) => {
    const { id } = await context.params;
    return Response.json({ webhook: await deleteWebhook(identity, id) });
  },
  { role: "admin", person: "configure webhooks" },
);

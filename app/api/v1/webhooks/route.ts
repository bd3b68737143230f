import { apiRoute } from "@/lib/server/http/api-route";
import { parseRequestBody } from "@/lib/server/http/request-body";
import { createWebhook, listWebhooks, type NewWebhook } from "@/lib/server/webhooks/webhook-store";
import { NEW_WEBHOOK_SCHEMA, WEBHOOK_BODY_MAX_BYTES } from "@/lib/validation/webhook-requests";

/** `GET /api/v1/webhooks` (admin) → 200 `{webhooks: [Webhook]}`, oldest first, never a secret (DESIGN.md "Integrations"). */
export const GET = apiRoute(async () => Response.json({ webhooks: await listWebhooks() }), { role: "admin" });

/**
 * `POST /api/v1/webhooks` `{url, events, format?}` (admin, a person) → 201 `{webhook, secret}`: the
 * signing secret is shown only in this answer (DESIGN.md "Integrations"). 400 for a bad address, an
 * unknown event or format.
 */
export const POST = apiRoute(
  async (request, _context, identity) => {
    const body = await parseRequestBody<NewWebhook>(request, NEW_WEBHOOK_SCHEMA, "a webhook", WEBHOOK_BODY_MAX_BYTES);
    return Response.json(await createWebhook(identity, body), { status: 201 });
  },
  { role: "admin", person: "configure webhooks" },
);

import { randomBytes, randomUUID } from "node:crypto";
import type { Webhook as WebhookRow, WebhookDelivery as DeliveryRow } from "@prisma/client";
import type { Identity } from "@/lib/types/identity";
import type { DeliveredEvent, WebhookDeliveryInfo, WebhookEvent, WebhookFormat, WebhookInfo } from "@/lib/types/webhook";
import { WEBHOOK_EVENTS } from "@/lib/types/webhook";
import { recordAudit } from "../audit/audit-trail";
import { db } from "../db";
import { modelTransaction } from "../db-transactions";
import { AppError } from "../errors";
import { sealSecret } from "../secrets/secret-box";
import { secretKey } from "../secrets/secret-key";
import { config } from "../env";
import { allSecrets } from "../secrets/all-secrets-mask";
import type { SecretMask } from "../secrets/secret-masking";
import { sentPayload } from "./webhook-body";
import { queueWebhookDeliveries } from "./webhook-outbox";

/** What an admin asks for (`POST /api/v1/webhooks`). */
export interface NewWebhook {
  url: string;
  events: WebhookEvent[];
  format?: WebhookFormat;
}

/** What an admin may change (`PATCH /api/v1/webhooks/{id}`). */
export interface WebhookChange {
  url?: string;
  events?: WebhookEvent[];
  format?: WebhookFormat;
  enabled?: boolean;
}

/** Most deliveries one page of the delivery log holds. */
export const DELIVERIES_PAGE_MAX = 200;

/** The name a webhook's secret is sealed under (its associated data): a sealed secret cannot be moved to another webhook. */
export function webhookSecretName(id: string): string {
  return `webhook:${id}`;
}

/**
 * The address checked: an absolute http(s) URL without credentials or fragment (the address is shown
 * to admins and its origin written in the audit trail; a password in it would be). Any host is
 * allowed, loopback included (issue 14: any address an admin names). Returns it normalised by URL.
 * Throws AppError bad_request naming what is wrong.
 */
function checkedUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new AppError("bad_request", `${JSON.stringify(raw.slice(0, 200))} is not a URL: give an absolute http:// or https:// address`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new AppError("bad_request", `a webhook's address must be http:// or https:// (got ${url.protocol})`);
  if (url.username !== "" || url.password !== "") throw new AppError("bad_request", "a webhook's address must not hold a user name or password: it is shown on the Webhooks page");
  if (url.hash !== "") throw new AppError("bad_request", "a webhook's address must not have a #fragment (it is never sent)");
  return url.toString();
}

/** Parses a stored events column; unknown names are dropped (a webhook is then sent fewer events, never more). */
function parseEvents(text: string): WebhookEvent[] {
  try {
    const value = JSON.parse(text) as unknown;
    return Array.isArray(value) ? WEBHOOK_EVENTS.filter((event) => value.includes(event)) : [];
  } catch {
    return [];
  }
}

/** The events in WEBHOOK_EVENTS' order, each once. */
function orderedEvents(events: readonly WebhookEvent[]): WebhookEvent[] {
  return WEBHOOK_EVENTS.filter((event) => events.includes(event));
}

/** What a webhook's listing shows of its deliveries: the last one, and how many failed or are failing. */
interface DeliverySummary {
  last: { status: string; createdAt: Date; lastAttemptAt: Date | null; lastStatus: number | null } | null;
  failing: number;
}

const LAST_DELIVERY_FIELDS = { status: true, createdAt: true, lastAttemptAt: true, lastStatus: true } as const;
/** A delivery that failed for good, or is being retried after a failed attempt. */
const FAILING_DELIVERY = { OR: [{ status: "failed" }, { status: "pending", lastError: { not: null } }] };

/** The delivery summary of the webhooks `ids`, by id, in three queries whatever their number (one per webhook made a page of 100 cost 200). */
async function deliverySummaries(ids: readonly string[]): Promise<Map<string, DeliverySummary>> {
  const summaries = new Map<string, DeliverySummary>(ids.map((id) => [id, { last: null, failing: 0 }]));
  if (ids.length === 0) return summaries;
  const [newest, failing] = await Promise.all([
    db().webhookDelivery.groupBy({ by: ["webhookId"], where: { webhookId: { in: [...ids] } }, _max: { id: true } }),
    db().webhookDelivery.groupBy({ by: ["webhookId"], where: { webhookId: { in: [...ids] }, ...FAILING_DELIVERY }, _count: { _all: true } }),
  ]);
  const lastIds = newest.map((group) => group._max.id).filter((id): id is number => id !== null);
  const lasts = lastIds.length === 0 ? [] : await db().webhookDelivery.findMany({ where: { id: { in: lastIds } }, select: { webhookId: true, ...LAST_DELIVERY_FIELDS } });
  for (const { webhookId, ...last } of lasts) summaries.get(webhookId)!.last = last;
  for (const group of failing) summaries.get(group.webhookId)!.failing = group._count._all;
  return summaries;
}

async function toWebhookInfo(row: WebhookRow, known?: DeliverySummary): Promise<WebhookInfo> {
  const { last, failing } = known ?? (await deliverySummaries([row.id])).get(row.id)!;
  return {
    id: row.id,
    url: row.url,
    events: parseEvents(row.events),
    format: row.format === "slack" ? "slack" : "json",
    enabled: row.enabled,
    createdBy: row.createdBy,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    lastDelivery: last ? { status: last.status as WebhookDeliveryInfo["status"], at: (last.lastAttemptAt ?? last.createdAt).toISOString(), httpStatus: last.lastStatus } : null,
    failing,
  };
}

/** Maps a delivery row to the log's shape; its payload as it is sent (sentPayload: masked with `mask`). */
export function toDeliveryInfo(row: DeliveryRow, mask: SecretMask): WebhookDeliveryInfo {
  return {
    id: row.id,
    webhookId: row.webhookId,
    event: row.event as DeliveredEvent,
    status: row.status as WebhookDeliveryInfo["status"],
    attempts: row.attempts,
    lastStatus: row.lastStatus,
    lastError: row.lastError,
    createdAt: row.createdAt.toISOString(),
    lastAttemptAt: row.lastAttemptAt?.toISOString() ?? null,
    nextAttemptAt: row.status === "pending" ? row.nextAttemptAt.toISOString() : null,
    deliveredAt: row.deliveredAt?.toISOString() ?? null,
    payload: sentPayload(row, mask, config().publicUrl),
  };
}

async function rowOf(id: string): Promise<WebhookRow> {
  const row = await db().webhook.findUnique({ where: { id } });
  if (!row) throw new AppError("not_found", `no webhook ${JSON.stringify(id.slice(0, 100))}`);
  return row;
}

/** Every webhook, oldest first (`GET /api/v1/webhooks`, admin): never a secret. */
export async function listWebhooks(): Promise<WebhookInfo[]> {
  const rows = await db().webhook.findMany({ orderBy: { createdAt: "asc" } });
  const summaries = await deliverySummaries(rows.map((row) => row.id));
  return Promise.all(rows.map((row) => toWebhookInfo(row, summaries.get(row.id))));
}

/** One webhook (`GET /api/v1/webhooks/{id}`). Throws AppError not_found. */
export async function getWebhook(id: string): Promise<WebhookInfo> {
  return toWebhookInfo(await rowOf(id));
}

/**
 * Creates a webhook (DESIGN.md "Integrations": `POST /api/v1/webhooks` → `{webhook, secret}`): a fresh
 * signing secret (`whsec_` + 32 random bytes, base64url) sealed with the console's secret key and
 * returned only here, the `webhook.created` audit entry (with the address's origin only: a Slack
 * address holds its own credential) in the same transaction. Throws AppError bad_request for a bad address.
 */
export async function createWebhook(actor: Pick<Identity, "email" | "userId">, input: NewWebhook): Promise<{ webhook: WebhookInfo; secret: string }> {
  const url = checkedUrl(input.url);
  const id = randomUUID();
  const secret = `whsec_${randomBytes(32).toString("base64url")}`;
  const sealed = sealSecret(secretKey(), webhookSecretName(id), secret);
  const events = orderedEvents(input.events);
  const format = input.format ?? "json";
  const row = await modelTransaction(async (tx) => {
    const created = await tx.webhook.create({
      data: { id, url, events: JSON.stringify(events), format, secretCiphertext: sealed.ciphertext, secretKeyId: sealed.keyId, createdBy: actor.email, createdById: actor.userId },
    });
    await recordAudit({ action: "webhook.created", actor: actor.email, actorId: actor.userId, details: { webhookId: id, destination: new URL(url).origin, events, format } }, tx);
    return created;
  });
  return { webhook: await toWebhookInfo(row), secret };
}

/**
 * Changes a webhook's address, events, format or whether it is enabled (`PATCH /api/v1/webhooks/{id}`),
 * with its `webhook.updated` audit entry. Disabling leaves queued deliveries to fail as they come due
 * (never sent to a disabled destination). Throws AppError not_found or bad_request.
 */
export async function updateWebhook(actor: Pick<Identity, "email" | "userId">, id: string, change: WebhookChange): Promise<WebhookInfo> {
  const data: Partial<Pick<WebhookRow, "url" | "events" | "format" | "enabled">> = {};
  if (change.url !== undefined) data.url = checkedUrl(change.url);
  if (change.events !== undefined) data.events = JSON.stringify(orderedEvents(change.events));
  if (change.format !== undefined) data.format = change.format;
  if (change.enabled !== undefined) data.enabled = change.enabled;
  const row = await modelTransaction(async (tx) => {
    const updated = await tx.webhook.updateMany({ where: { id }, data });
    if (updated.count === 0) throw new AppError("not_found", `no webhook ${JSON.stringify(id.slice(0, 100))}`);
    const row = await tx.webhook.findUniqueOrThrow({ where: { id } });
    await recordAudit(
      { action: "webhook.updated", actor: actor.email, actorId: actor.userId, details: { webhookId: id, destination: new URL(row.url).origin, changed: Object.keys(data).sort(), enabled: row.enabled } },
      tx,
    );
    return row;
  });
  return toWebhookInfo(row);
}

/**
 * Deletes a webhook and its delivery log (`DELETE /api/v1/webhooks/{id}`), with its `webhook.deleted`
 * audit entry. Returns the webhook as it was. Throws AppError not_found.
 */
export async function deleteWebhook(actor: Pick<Identity, "email" | "userId">, id: string): Promise<WebhookInfo> {
  const before = await toWebhookInfo(await rowOf(id));
  await modelTransaction(async (tx) => {
    const deleted = await tx.webhook.deleteMany({ where: { id } });
    if (deleted.count === 0) throw new AppError("not_found", `no webhook ${JSON.stringify(id.slice(0, 100))}`);
    await tx.webhookDelivery.deleteMany({ where: { webhookId: id } });
    await recordAudit({ action: "webhook.deleted", actor: actor.email, actorId: actor.userId, details: { webhookId: id, destination: new URL(before.url).origin } }, tx);
  });
  return before;
}

/**
 * Queues a `ping` delivery to one webhook, enabled or not (`POST /api/v1/webhooks/{id}/test`): the
 * admin sees in the log whether the destination answers and checks the signature. Returns the delivery.
 * Throws AppError not_found.
 */
export async function sendTestDelivery(actor: Pick<Identity, "email">, id: string): Promise<WebhookDeliveryInfo> {
  await rowOf(id);
  const at = new Date();
  const row = await modelTransaction(async (tx) => {
    await queueWebhookDeliveries(tx, "ping", { at: at.toISOString(), actor: actor.email, url: "/webhooks", call: null, approval: null, pack: null }, at, id);
    return tx.webhookDelivery.findFirstOrThrow({ where: { webhookId: id, event: "ping" }, orderBy: { id: "desc" } });
  });
  return toDeliveryInfo(row, (await allSecrets()).mask);
}

/**
 * One page of a webhook's delivery log, newest first (`GET /api/v1/webhooks/{id}/deliveries`): at most
 * `limit` (1–DELIVERIES_PAGE_MAX, default 50), ids below `before`. Throws AppError not_found or bad_request.
 */
export async function listDeliveries(id: string, options: { limit?: number; before?: number } = {}): Promise<WebhookDeliveryInfo[]> {
  const limit = options.limit ?? 50;
  if (!Number.isInteger(limit) || limit < 1 || limit > DELIVERIES_PAGE_MAX) throw new AppError("bad_request", `limit must be an integer from 1 to ${DELIVERIES_PAGE_MAX}`);
  await rowOf(id);
  const rows = await db().webhookDelivery.findMany({
    where: { webhookId: id, ...(options.before !== undefined ? { id: { lt: options.before } } : {}) },
    orderBy: { id: "desc" },
    take: limit,
  });
  const { mask } = await allSecrets();
  return rows.map((row) => toDeliveryInfo(row, mask));
}

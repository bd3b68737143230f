/**
 * Webhook deliveries with two console replicas on one PostgreSQL database (issue 14 point 1, DESIGN.md
 * "Several replicas" and "Integrations"): both replicas run a dispatcher over the same outbox, each
 * woken by the deliveries it queues and polling for the rest, so both race for every due delivery and
 * every retry. A delivery's attempt is claimed with a compare-and-set lease: each attempt is made by
 * one replica, never both, and a destination never has two attempts in flight at once, whichever
 * replica makes them. Shown with a receiver that fails every delivery's first attempt (so the retry is
 * raced for too) and holds each answer a while (so overlapping attempts would show); and with the race
 * forced: due deliveries locked by the test until both replicas' claims wait on them, then let go.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WebhookDeliveryInfo, WebhookInfo } from "@/lib/types/webhook";
import { Prisma } from "@prisma/client";
import { statementTransaction, statements } from "@/lib/server/db-statements";
import { callReplica, signInAt, startReplica, type TestReplica } from "../helpers/replicas";
import { onPostgres, setUpTestConsole } from "../helpers/test-console";
import { TEST_ADMIN } from "../helpers/test-people";
import { until, WebhookReceiver } from "../helpers/webhook-receiver";

const WEBHOOKS = 3;
const PINGS_PER_WEBHOOK = 8;
/** How long the receiver holds each answer, in ms. */
const ANSWER_DELAY_MS = 150;

let replicas: TestReplica[] = [];
let receiver: WebhookReceiver;
let admin: Record<string, string>;
let base: string;

async function json<T>(response: Response, status: number): Promise<T> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  return JSON.parse(text) as T;
}

describe.skipIf(!onPostgres())("webhook deliveries with two console replicas", () => {
  beforeAll(async () => {
    await setUpTestConsole({ WEBHOOK_RETRY_FIRST_MS: "200", WEBHOOK_TIMEOUT_MS: "3000" });
    receiver = new WebhookReceiver();
    receiver.delayMs = ANSWER_DELAY_MS;
    // Every delivery's first attempt fails; its retry succeeds.
    receiver.answer = () => {
      const last = receiver.received.at(-1)!;
      const id = last.headers["x-console-delivery"];
      return receiver.received.filter((item) => item.headers["x-console-delivery"] === id).length === 1 ? 500 : 200;
    };
    base = await receiver.listen();
    replicas = await Promise.all(["a", "b"].map((name) => startReplica(name)));
    admin = await signInAt(replicas[0]!.url, TEST_ADMIN.email, TEST_ADMIN.password);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.stop("SIGKILL")));
    await receiver?.close();
  });

  it("make every attempt once, one at a time per destination, whichever replica queued the delivery", { timeout: 90_000 }, async () => {
    const [a, b] = replicas as [TestReplica, TestReplica];
    const webhooks: WebhookInfo[] = [];
    for (let i = 1; i <= WEBHOOKS; i++) {
      const created = await json<{ webhook: WebhookInfo }>(await callReplica(a.url, "POST", "/api/v1/webhooks", admin, { url: `${base}/hook-${i}`, events: ["call.failed"] }), 201);
      webhooks.push(created.webhook);
    }
    // Pings queued on both replicas at once, alternating: each wakes its own replica's dispatcher.
    const queued = await Promise.all(
      Array.from({ length: WEBHOOKS * PINGS_PER_WEBHOOK }, (_, index) => {
        const replica = index % 2 === 0 ? a : b;
        const webhook = webhooks[index % WEBHOOKS]!;
        return callReplica(replica.url, "POST", `/api/v1/webhooks/${webhook.id}/test`, admin).then((response) => json<{ delivery: WebhookDeliveryInfo }>(response, 202));
      }),
    );
    const ids = queued.map(({ delivery }) => delivery.id).sort((x, y) => x - y);
    expect(new Set(ids).size).toBe(WEBHOOKS * PINGS_PER_WEBHOOK);

    const logs = await until(
      async () => {
        const all = await Promise.all(webhooks.map(async (webhook) => (await json<{ deliveries: WebhookDeliveryInfo[] }>(await callReplica(b.url, "GET", `/api/v1/webhooks/${webhook.id}/deliveries?limit=200`, admin), 200)).deliveries));
        return all.flat().every((delivery) => delivery.status === "delivered") ? all.flat() : undefined;
      },
      "every delivery to be delivered",
      60_000,
    );
    expect(logs.map((delivery) => delivery.id).sort((x, y) => x - y)).toEqual(ids);
    // Exactly two attempts each, as the log counts them and as the receiver saw them: a 500, then a 200.
    expect(logs.map((delivery) => [delivery.id, delivery.attempts, delivery.lastStatus])).toEqual(logs.map((delivery) => [delivery.id, 2, 200]));
    const attemptsById = new Map<string, number>();
    for (const item of receiver.received) {
      const id = String(item.headers["x-console-delivery"]);
      attemptsById.set(id, (attemptsById.get(id) ?? 0) + 1);
    }
    expect([...attemptsById].sort(([x], [y]) => Number(x) - Number(y))).toEqual(ids.map((id) => [String(id), 2]));
    // One attempt in flight per destination at any moment, though two dispatchers raced for them.
    expect(webhooks.map((_, index) => receiver.peakInFlight(`/hook-${index + 1}`))).toEqual(webhooks.map(() => 1));
    // Each destination's deliveries went in order: the first attempts by id.
    for (let i = 1; i <= WEBHOOKS; i++) {
      const firsts = receiver.at(`/hook-${i}`).map((item) => Number(item.headers["x-console-delivery"])).filter((id, index, all) => all.indexOf(id) === index);
      expect(firsts).toEqual([...firsts].sort((x, y) => x - y));
    }
  });

  it("claim each due delivery on one replica when both claimed it at the same moment", { timeout: 90_000 }, async () => {
    receiver.answer = () => 200;
    receiver.delayMs = 0;
    const webhooks: WebhookInfo[] = [];
    for (let i = 1; i <= WEBHOOKS; i++) {
      const created = await json<{ webhook: WebhookInfo }>(await callReplica(replicas[0]!.url, "POST", "/api/v1/webhooks", admin, { url: `${base}/raced-${i}`, events: ["call.failed"] }), 201);
      webhooks.push(created.webhook);
    }
    // A payload as the outbox stores it, from one ping delivered first.
    const { delivery: first } = await json<{ delivery: WebhookDeliveryInfo }>(await callReplica(replicas[0]!.url, "POST", `/api/v1/webhooks/${webhooks[0]!.id}/test`, admin), 202);
    await until(() => (receiver.at("/raced-1").length === 1 ? true : undefined), "the first ping");
    const { payload } = (await statements().$queryRaw<Array<{ payload: string }>>`SELECT "payload" FROM "WebhookDelivery" WHERE "id" = ${first.id}`)[0]!;
    // Due in a moment: neither replica sees them before they are locked below.
    const dueAt = new Date(Date.now() + 1500);
    for (const webhook of webhooks) {
      await statements().$executeRaw`INSERT INTO "WebhookDelivery" ("webhookId", "event", "payload", "status", "attempts", "nextAttemptAt", "createdAt") VALUES (${webhook.id}, ${"ping"}, ${payload}, ${"pending"}, ${0}, ${dueAt}, ${dueAt})`;
    }
    const raced = (await statements().$queryRaw<Array<{ id: number }>>`SELECT "id" FROM "WebhookDelivery" WHERE "nextAttemptAt" = ${dueAt} ORDER BY "id"`).map((row) => row.id);
    expect(raced).toHaveLength(WEBHOOKS);
    await statementTransaction(
      async (tx) => {
        await tx.$queryRaw`SELECT "id" FROM "WebhookDelivery" WHERE "nextAttemptAt" = ${dueAt} FOR UPDATE`;
        const { pid } = (await tx.$queryRaw<Array<{ pid: number }>>`SELECT pg_backend_pid() AS "pid"`)[0]!;
        // Both dispatchers poll every 2 s: once they are due, each one's claim waits on these rows (the
        // second in line waits on the first's tuple lock, so it is not blocked by this backend directly).
        await until(
          async () => {
            const { waiting } = (await statements().$queryRaw<Array<{ waiting: number }>>`SELECT COUNT(*)::int AS "waiting" FROM pg_stat_activity WHERE "datname" = current_database() AND "pid" <> ${pid} AND cardinality(pg_blocking_pids("pid")) > 0`)[0]!;
            return waiting >= 2 ? true : undefined;
          },
          "both replicas' claims to wait on the locked deliveries",
          20_000,
        );
      },
      { postgresIsolation: "read committed" },
    );
    await until(() => (raced.every((id) => receiver.received.some((item) => item.headers["x-console-delivery"] === String(id))) ? true : undefined), "the raced deliveries");
    // Give a second sender time to show itself (an attempt takes milliseconds here).
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const sent = raced.map((id) => receiver.received.filter((item) => item.headers["x-console-delivery"] === String(id)).length);
    expect(sent).toEqual(raced.map(() => 1));
    const rows = await statements().$queryRaw<Array<{ id: number; attempts: number; status: string }>>`SELECT "id", "attempts", "status" FROM "WebhookDelivery" WHERE "id" IN (${Prisma.join(raced)}) ORDER BY "id"`;
    expect(rows.map((row) => [row.id, Number(row.attempts), row.status])).toEqual(raced.map((id) => [id, 1, "delivered"]));
  });
});

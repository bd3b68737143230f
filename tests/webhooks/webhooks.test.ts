/**
 * Webhooks (DESIGN.md "Integrations", issue 14 point 1), through the HTTP routes, a real worker, real
 * child processes and real HTTP receivers on loopback: admins configure destinations (secret shown
 * once); approvals requested, decided and expired, calls awaiting confirmation and failed calls are
 * delivered as JSON signed with HMAC-SHA256 of the exact body, or as Slack messages linking to the
 * console; a receiver that is down, answers 500 or is slow (30 s) is retried with backoff and logged
 * per delivery, without holding up other destinations; no secret value ever leaves in a payload.
 */
import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as deliveriesRoute from "@/app/api/v1/webhooks/[id]/deliveries/route";
import * as webhookRoute from "@/app/api/v1/webhooks/[id]/route";
import * as testRoute from "@/app/api/v1/webhooks/[id]/test/route";
import * as webhooksRoute from "@/app/api/v1/webhooks/route";
import * as secretsRoute from "@/app/api/v1/secrets/route";
import { expireDueApprovals } from "@/lib/server/approvals/expire-approvals";
import { DELIVERY_RETENTION_MS, pruneDeliveries } from "@/lib/server/webhooks/webhook-dispatcher";
import { db } from "@/lib/server/db";
import type { WebhookDeliveryInfo, WebhookInfo, WebhookPayload } from "@/lib/types/webhook";
import { invoke } from "../helpers/route-client";
import { until, WebhookReceiver } from "../helpers/webhook-receiver";
import { reloadTestConsole, setUpTestConsole, writeSkill, type TestConsole } from "../helpers/test-console";
import { createPerson, type TestPerson } from "../helpers/test-people";
import { confirm, createPersonaRow, createToken, deny, errorOf, requestCall, requestWaitingCall, sign } from "../api/approvals-fixtures";

/** A skill secret's value: must appear in no delivery, whatever carries it. */
const SECRET_VALUE = "whk-secret-7d1e9a3c5b2f4e6a";
const PUBLIC_URL = "https://console.example.test";
const RETRY_FIRST_MS = 300;
const TIMEOUT_MS = 1500;



let testConsole: TestConsole;
let receiver: WebhookReceiver;
let base: string;
let requester: TestPerson;
let approverA: TestPerson;
let approverB: TestPerson;
let operator: TestPerson;

async function createWebhook(body: unknown, as: "admin" | Record<string, string> = "admin"): Promise<Response> {
  return invoke(webhooksRoute.POST, "/api/v1/webhooks", { body, as });
}

async function newWebhook(url: string, events: string[] = ["approval.requested", "approval.decided", "approval.expired", "call.awaiting_confirmation", "call.failed"], format = "json"): Promise<{ webhook: WebhookInfo; secret: string }> {
  const response = await createWebhook({ url, events, format });
  expect(response.status).toBe(201);
  return (await response.json()) as { webhook: WebhookInfo; secret: string };
}

async function deliveriesOf(id: string): Promise<WebhookDeliveryInfo[]> {
  const response = await invoke(deliveriesRoute.GET, `/api/v1/webhooks/${id}/deliveries`, { params: { id } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { deliveries: WebhookDeliveryInfo[] }).deliveries;
}


function hmac(secret: string, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

beforeAll(async () => {
  testConsole = await setUpTestConsole({ WEBHOOK_RETRY_FIRST_MS: String(RETRY_FIRST_MS), WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS), CONSOLE_PUBLIC_URL: PUBLIC_URL });
  writeSkill(testConsole.root, "wh_wiper", { name: "wh_wiper", class: "dangerous", schema: { type: "object", properties: { disk: { type: "string" } } } }, 'echo \'{"wiped": true}\'');
  writeSkill(testConsole.root, "wh_restart", { name: "wh_restart", class: "mutating", schema: { type: "object" } }, 'echo \'{"restarted": true}\'');
  writeSkill(testConsole.root, "wh_broken", { name: "wh_broken", class: "safe", env_allow: ["WH_TOKEN"], schema: { type: "object" } }, 'echo "failed with token $WH_TOKEN" >&2; echo "token $WH_TOKEN"');
  await reloadTestConsole();
  const secret = await invoke(secretsRoute.POST, "/api/v1/secrets", { body: { name: "WH_TOKEN", value: SECRET_VALUE, skills: ["wh_broken"] } });
  expect(secret.status).toBe(201);
  await createPersonaRow("dual", "dual-sign-required");
  await createPersonaRow("ops", "mutating-with-confirm");
  requester = await createPerson("approver");
  approverA = await createPerson("approver");
  approverB = await createPerson("approver");
  operator = await createPerson("operator");
  receiver = new WebhookReceiver();
  base = await receiver.listen();
});

afterAll(async () => {
  await receiver?.close();
});

describe("configuring webhooks", () => {
  it("creates a webhook with its secret shown once, lists it without the secret, and refuses bad input and non-admins", async () => {
    const { webhook, secret } = await newWebhook(`${base}/configured`, ["call.failed", "approval.requested"]);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(webhook).toMatchObject({ url: `${base}/configured`, events: ["approval.requested", "call.failed"], format: "json", enabled: true, createdBy: "admin@console.local", lastDelivery: null, failing: 0 });
    const listed = await invoke(webhooksRoute.GET, "/api/v1/webhooks");
    const text = await listed.text();
    expect(listed.status).toBe(200);
    expect(text).toContain(webhook.id);
    expect(text).not.toContain(secret);
    expect(JSON.stringify(await db().webhook.findMany())).not.toContain(secret);
    expect(JSON.stringify(await db().auditEvent.findMany({ where: { action: "webhook.created" } }))).not.toContain("/configured");

    const refusals: Array<[unknown, string]> = [
      [{ url: "ftp://127.0.0.1/x", events: ["call.failed"] }, "a webhook's address must be http:// or https:// (got ftp:)"],
      [{ url: "http://user:pw@127.0.0.1/x", events: ["call.failed"] }, "a webhook's address must not hold a user name or password: it is shown on the Webhooks page"],
      [{ url: "not a url", events: ["call.failed"] }, '"not a url" is not a URL: give an absolute http:// or https:// address'],
    ];
    for (const [body, message] of refusals) {
      const response = await createWebhook(body);
      expect(response.status).toBe(400);
      expect(await errorOf(response)).toMatchObject({ code: "bad_request", message });
    }
    const unknownEvent = await createWebhook({ url: `${base}/x`, events: ["call.started"] });
    expect(unknownEvent.status).toBe(400);
    expect((await errorOf(unknownEvent)).message).toContain("a webhook: /events/0 must be equal to one of the allowed values");
    const noEvents = await createWebhook({ url: `${base}/x`, events: [] });
    expect(noEvents.status).toBe(400);

    const asOperator = await createWebhook({ url: `${base}/x`, events: ["call.failed"] }, operator.headers);
    expect(asOperator.status).toBe(403);
    const asOperatorList = await invoke(webhooksRoute.GET, "/api/v1/webhooks", { as: operator.headers });
    expect(asOperatorList.status).toBe(403);
    const anonymous = await invoke(webhooksRoute.GET, "/api/v1/webhooks", { as: "anonymous" });
    expect(anonymous.status).toBe(401);

    const disabled = await invoke(webhookRoute.PATCH, `/api/v1/webhooks/${webhook.id}`, { method: "PATCH", body: { enabled: false }, params: { id: webhook.id } });
    expect(disabled.status).toBe(200);
    expect(((await disabled.json()) as { webhook: WebhookInfo }).webhook.enabled).toBe(false);
    const removed = await invoke(webhookRoute.DELETE, `/api/v1/webhooks/${webhook.id}`, { method: "DELETE", params: { id: webhook.id } });
    expect(removed.status).toBe(200);
    const gone = await invoke(webhookRoute.GET, `/api/v1/webhooks/${webhook.id}`, { params: { id: webhook.id } });
    expect(gone.status).toBe(404);
  });

  it("lists each webhook with its own last delivery and count of failing ones (read for all webhooks at once)", async () => {
    const made = await Promise.all(["summary-a", "summary-b", "summary-c"].map((name) => newWebhook(`${base}/${name}`, ["call.failed"])));
    const [a, b, c] = made.map(({ webhook }) => webhook.id) as [string, string, string];
    // Disabled, so no event of another test is queued for them: only the rows below exist.
    await db().webhook.updateMany({ where: { id: { in: [a, b, c] } }, data: { enabled: false } });
    const at = (second: number) => new Date(Date.UTC(2026, 11, 1, 12, 0, second));
    const later = new Date(Date.now() + 24 * 3600 * 1000);
    const delivery = (webhookId: string, fields: Record<string, unknown>) =>
      db().webhookDelivery.create({ data: { webhookId, event: "call.failed", payload: "{}", status: "delivered", attempts: 1, nextAttemptAt: later, createdAt: at(0), ...fields } });
    // Interleaved, so each webhook's newest delivery is not the newest of all.
    await delivery(a, { lastAttemptAt: at(1), lastStatus: 200 });
    await delivery(b, { lastAttemptAt: at(2), lastStatus: 204 });
    await delivery(a, { status: "failed", attempts: 9, lastAttemptAt: at(3), lastStatus: 500, lastError: "HTTP 500" });
    await delivery(a, { status: "pending", attempts: 2, lastAttemptAt: at(4), lastStatus: 503, lastError: "HTTP 503" });
    await delivery(b, { status: "pending", attempts: 0, createdAt: at(5) });

    const listed = await invoke(webhooksRoute.GET, "/api/v1/webhooks");
    expect(listed.status).toBe(200);
    const byId = new Map(((await listed.json()) as { webhooks: WebhookInfo[] }).webhooks.map((webhook) => [webhook.id, webhook]));
    expect(byId.get(a)).toMatchObject({ lastDelivery: { status: "pending", at: at(4).toISOString(), httpStatus: 503 }, failing: 2 });
    expect(byId.get(b)).toMatchObject({ lastDelivery: { status: "pending", at: at(5).toISOString(), httpStatus: null }, failing: 0 });
    expect(byId.get(c)).toMatchObject({ lastDelivery: null, failing: 0 });
    // One webhook alone reads the same.
    const one = await invoke(webhookRoute.GET, `/api/v1/webhooks/${a}`, { params: { id: a } });
    expect(((await one.json()) as { webhook: WebhookInfo }).webhook).toMatchObject({ lastDelivery: { status: "pending", at: at(4).toISOString(), httpStatus: 503 }, failing: 2 });
  });
});

describe("deliveries", () => {
  it("tells of an approval requested and decided, signed with HMAC-SHA256 of the exact body, linking to the call", async () => {
    const { webhook, secret } = await newWebhook(`${base}/approvals`);
    const { call, approvalId } = await requestWaitingCall("wh_wiper", "dual", requester.headers, { disk: "/dev/sdq" });
    const requested = await until(() => receiver.received.find((item) => item.path === "/approvals" && item.headers["x-console-event"] === "approval.requested"), "approval.requested");
    expect(requested.headers["x-console-signature"]).toBe(hmac(secret, requested.body));
    expect(requested.headers["content-type"]).toBe("application/json");
    const payload = JSON.parse(requested.body) as WebhookPayload;
    expect(requested.headers["x-console-delivery"]).toBe(String(payload.id));
    expect(payload).toMatchObject({
      event: "approval.requested",
      actor: requester.email,
      url: `${PUBLIC_URL}/approvals#approval-${approvalId}`,
      call: { id: call.id, skill: "wh_wiper", status: "awaiting_approval" },
      approval: { id: approvalId, kind: "call" },
      pack: null,
    });
    // Args never travel: the approver reads them in the console.
    expect(requested.body).not.toContain("/dev/sdq");

    expect((await sign(approvalId!, approverA.headers)).status).toBe(200);
    expect((await sign(approvalId!, approverB.headers)).status).toBe(200);
    const decided = await until(() => receiver.payloads("/approvals").find((item) => item.event === "approval.decided"), "approval.decided");
    expect(decided).toMatchObject({ actor: approverB.email, call: { id: call.id, skill: "wh_wiper", status: "queued" }, approval: { id: approvalId, kind: "call", decision: "approved", signers: [approverA.email, approverB.email] } });
    const log = await until(async () => {
      const deliveries = await deliveriesOf(webhook.id);
      return deliveries.length === 2 && deliveries.every((item) => item.status === "delivered") ? deliveries : undefined;
    }, "both deliveries logged as delivered");
    expect(log.map((item) => [item.event, item.status, item.attempts, item.lastStatus])).toEqual([
      ["approval.decided", "delivered", 1, 200],
      ["approval.requested", "delivered", 1, 200],
    ]);
    await invoke(webhookRoute.DELETE, `/api/v1/webhooks/${webhook.id}`, { method: "DELETE", params: { id: webhook.id } });
  });

  it("tells of a denial and an expiry, and never lets a secret's value out, even in a person's deny reason", async () => {
    await newWebhook(`${base}/decisions`, ["approval.decided", "approval.expired"]);
    const denied = await requestWaitingCall("wh_wiper", "dual", requester.headers);
    expect((await deny(denied.approvalId!, { reason: `pasted ${SECRET_VALUE} by mistake` }, approverA.headers)).status).toBe(200);
    const denial = await until(() => receiver.payloads("/decisions").find((item) => item.event === "approval.decided"), "approval.decided (denied)");
    expect(denial.approval).toMatchObject({ id: denied.approvalId, decision: "denied", reason: "pasted ••• by mistake" });

    const expiring = await requestWaitingCall("wh_wiper", "dual", requester.headers);
    await db().approval.update({ where: { id: expiring.approvalId! }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await expireDueApprovals();
    const expiry = await until(() => receiver.payloads("/decisions").find((item) => item.event === "approval.expired"), "approval.expired");
    expect(expiry).toMatchObject({ actor: "system", call: { id: expiring.call.id, status: "expired" }, approval: { id: expiring.approvalId, kind: "call" } });
    for (const item of receiver.received) expect(item.body).not.toContain(SECRET_VALUE);
  });

  it("tells of an agent's call awaiting confirmation and of a failed call, with the error masked", async () => {
    const { webhook } = await newWebhook(`${base}/calls`, ["call.awaiting_confirmation", "call.failed"]);
    const agent = await createToken("ops", operator.headers);
    const waiting = await requestCall("wh_restart", { args: {}, persona: "ops" }, agent);
    expect(waiting.status).toBe(202);
    const { call } = (await waiting.json()) as { call: { id: string } };
    const awaiting = await until(() => receiver.payloads("/calls").find((item) => item.event === "call.awaiting_confirmation"), "call.awaiting_confirmation");
    expect(awaiting).toMatchObject({ url: `${PUBLIC_URL}/calls/${call.id}`, call: { id: call.id, skill: "wh_restart", status: "awaiting_confirmation" }, approval: null });
    expect(awaiting.actor).toMatch(/^token:/);
    expect((await confirm(call.id, operator.headers)).status).toBe(200);

    const failed = await requestCall("wh_broken", { args: {}, wait: true });
    expect(failed.status).toBe(200);
    const failedCall = ((await failed.json()) as { call: { id: string; status: string } }).call;
    expect(failedCall.status).toBe("failed");
    const told = await until(() => receiver.payloads("/calls").find((item) => item.event === "call.failed"), "call.failed");
    expect(told.call).toMatchObject({ id: failedCall.id, skill: "wh_broken", status: "failed", exitCode: 0, error: 'stdout is not a JSON object: Unexpected token \'o\', "token •••" is not valid JSON (stdout: "token •••")' });
    for (const item of receiver.received) expect(item.body).not.toContain(SECRET_VALUE);
    // The log shows exactly what was sent.
    const [logged] = await deliveriesOf(webhook.id);
    expect(logged!.payload).toEqual(told);
  });

  it("sends the Slack format as a message with a button to the page", async () => {
    const { webhook } = await newWebhook(`${base}/slack`, ["call.failed"], "slack");
    const ping = await invoke(testRoute.POST, `/api/v1/webhooks/${webhook.id}/test`, { method: "POST", params: { id: webhook.id } });
    expect(ping.status).toBe(202);
    const message = await until(() => receiver.received.find((item) => item.path === "/slack"), "the Slack ping");
    expect(JSON.parse(message.body)).toEqual({
      text: `Test delivery from the skill console, sent by admin@console.local <${PUBLIC_URL}/webhooks|Open in the console>`,
      blocks: [
        { type: "section", text: { type: "mrkdwn", text: "Test delivery from the skill console, sent by admin@console.local" } },
        { type: "actions", elements: [{ type: "button", text: { type: "plain_text", text: "Open in the console" }, url: `${PUBLIC_URL}/webhooks` }] },
      ],
    });
  });
});

describe("retries", () => {
  it("retries a receiver that is down with growing delays, then delivers once it is up", async () => {
    const later = new WebhookReceiver();
    const url = await later.listen();
    await later.close();
    const { webhook } = await newWebhook(`${url}/late`);
    await invoke(testRoute.POST, `/api/v1/webhooks/${webhook.id}/test`, { method: "POST", params: { id: webhook.id } });
    // Read between attempts (none in flight), after at least two failed ones.
    const row = await until(async () => {
      const [delivery] = await db().webhookDelivery.findMany({ where: { webhookId: webhook.id } });
      return delivery && delivery.attempts >= 2 && delivery.leaseUntil === null ? delivery : undefined;
    }, "two failed attempts");
    expect(row).toMatchObject({ status: "pending", lastStatus: null });
    expect(row.lastError).toMatch(/^could not connect: .*ECONNREFUSED/);
    // Each retry waits three times longer than the one before.
    expect(row.nextAttemptAt.getTime() - row.lastAttemptAt!.getTime()).toBeGreaterThanOrEqual(RETRY_FIRST_MS * 3 ** (row.attempts - 1));
    expect(((await (await invoke(webhookRoute.GET, `/api/v1/webhooks/${webhook.id}`, { params: { id: webhook.id } })).json()) as { webhook: WebhookInfo }).webhook.failing).toBe(1);

    await later.listen(Number(new URL(url).port));
    try {
      const delivered = await until(async () => {
        const [delivery] = await deliveriesOf(webhook.id);
        return delivery?.status === "delivered" ? delivery : undefined;
      }, "the delivery once the receiver is up", 30_000);
      expect(delivered.lastError).toBeNull();
      expect(later.received).toHaveLength(1);
    } finally {
      await later.close();
    }
  });

  it("retries a receiver answering 500 and logs its answer; a slow one times out without holding up another", async () => {
    let failures = 2;
    receiver.answer = (path) => (path === "/flaky" ? (failures-- > 0 ? 500 : 200) : path === "/slow" ? "hang" : 200);
    try {
      const flaky = await newWebhook(`${base}/flaky`);
      const slow = await newWebhook(`${base}/slow`);
      const prompt = await newWebhook(`${base}/prompt`);
      for (const { webhook } of [slow, flaky, prompt]) await invoke(testRoute.POST, `/api/v1/webhooks/${webhook.id}/test`, { method: "POST", params: { id: webhook.id } });

      const quick = await until(async () => {
        const [delivery] = await deliveriesOf(prompt.webhook.id);
        return delivery?.status === "delivered" ? delivery : undefined;
      }, "the prompt destination's delivery");
      expect(quick.attempts).toBe(1);

      const errored = await until(async () => {
        const [delivery] = await deliveriesOf(flaky.webhook.id);
        return delivery?.lastStatus === 500 ? delivery : undefined;
      }, "a logged 500");
      expect(errored.lastError).toBe("answered 500 Internal Server Error: boom: the receiver broke");
      const recovered = await until(async () => {
        const [delivery] = await deliveriesOf(flaky.webhook.id);
        return delivery?.status === "delivered" ? delivery : undefined;
      }, "the flaky destination's delivery");
      expect(recovered).toMatchObject({ attempts: 3, lastStatus: 200, lastError: null });

      const timedOut = await until(async () => {
        const [delivery] = await deliveriesOf(slow.webhook.id);
        return delivery?.lastError ? delivery : undefined;
      }, "the slow destination's timeout");
      expect(timedOut).toMatchObject({ status: "pending", lastStatus: null, lastError: `no answer within ${TIMEOUT_MS} ms` });
      await invoke(webhookRoute.DELETE, `/api/v1/webhooks/${slow.webhook.id}`, { method: "DELETE", params: { id: slow.webhook.id } });
    } finally {
      receiver.answer = () => 200;
    }
  });

  it("gives up a day after the event", async () => {
    receiver.answer = (path) => (path === "/gone" ? 503 : 200);
    try {
      const { webhook } = await newWebhook(`${base}/gone`);
      await invoke(testRoute.POST, `/api/v1/webhooks/${webhook.id}/test`, { method: "POST", params: { id: webhook.id } });
      const [first] = await deliveriesOf(webhook.id);
      // The event happened a day ago: the next failure is the last.
      await db().webhookDelivery.update({ where: { id: first!.id }, data: { createdAt: new Date(Date.now() - 24 * 3600_000 + 100) } });
      const failed = await until(async () => {
        const [delivery] = await deliveriesOf(webhook.id);
        return delivery?.status === "failed" ? delivery : undefined;
      }, "the delivery given up");
      expect(failed.lastStatus).toBe(503);
      expect(failed.lastError).toMatch(/^answered 503 Service Unavailable: boom: the receiver broke; gave up after \d+ attempts? \(deliveries are retried for a day\)$/);
      expect(failed.nextAttemptAt).toBeNull();
    } finally {
      receiver.answer = () => 200;
    }
  });

  it("ends a pending delivery of a webhook disabled since, without sending it, and sends a test delivery all the same", async () => {
    const { webhook } = await newWebhook(`${base}/disabled`);
    const patched = await invoke(webhookRoute.PATCH, `/api/v1/webhooks/${webhook.id}`, { method: "PATCH", params: { id: webhook.id }, body: { enabled: false } });
    expect(patched.status).toBe(200);
    // Queued while it was enabled, due now.
    const queued = await db().webhookDelivery.create({ data: { webhookId: webhook.id, event: "call.failed", payload: "{}", status: "pending", nextAttemptAt: new Date(), createdAt: new Date() } });
    await invoke(testRoute.POST, `/api/v1/webhooks/${webhook.id}/test`, { method: "POST", params: { id: webhook.id } });
    const ended = await until(async () => {
      const deliveries = await deliveriesOf(webhook.id);
      return deliveries.every((delivery) => delivery.status !== "pending") ? deliveries : undefined;
    }, "both deliveries to end");
    expect(ended.map((delivery) => [delivery.event, delivery.status, delivery.attempts, delivery.lastStatus, delivery.lastError, delivery.deliveredAt === null, delivery.nextAttemptAt])).toEqual([
      ["ping", "delivered", 1, 200, null, false, null],
      ["call.failed", "failed", 1, null, "the webhook is disabled", true, null],
    ]);
    expect(ended[1]!.id).toBe(queued.id);
    expect(receiver.payloads("/disabled").map((payload) => payload.event)).toEqual(["ping"]);
  });

  it("prunes delivered and given-up deliveries older than the retention, never a pending one", async () => {
    const { webhook } = await newWebhook(`${base}/pruned`);
    const old = new Date(Date.now() - DELIVERY_RETENTION_MS - 60_000);
    const rows = ["delivered", "failed", "pending"].map((status) => ({ webhookId: webhook.id, event: "ping", payload: "{}", status, nextAttemptAt: new Date(Date.now() + 3_600_000), createdAt: old }));
    for (const data of rows) await db().webhookDelivery.create({ data });
    await db().webhookDelivery.create({ data: { ...rows[0]!, createdAt: new Date() } });
    expect(await pruneDeliveries()).toBeGreaterThanOrEqual(2);
    const left = await db().webhookDelivery.findMany({ where: { webhookId: webhook.id }, orderBy: { id: "asc" } });
    expect(left.map((row) => [row.status, row.createdAt.getTime() === old.getTime()])).toEqual([
      ["pending", true],
      ["delivered", false],
    ]);
  });
});

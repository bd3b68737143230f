/**
 * Attacks on issue 14's integrations (webhooks, the ongrid drop-in), each a claim of the brief that an
 * attack review broke: a secret's value kept in the outbox and sent after the secret was deleted; a
 * hanging destination holding every sending slot; the delivery log rebuilding the secrets' mask per
 * row; execute parsing megabytes of params on the main thread; a cancelled approval never told. Real
 * receivers on loopback, a real worker and real child processes, through the HTTP routes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as webhooksRoute from "@/app/api/v1/webhooks/route";
import * as deliveriesRoute from "@/app/api/v1/webhooks/[id]/deliveries/route";
import * as secretsRoute from "@/app/api/v1/secrets/route";
import * as secretRoute from "@/app/api/v1/secrets/[name]/route";
import * as cancelRoute from "@/app/api/v1/calls/[id]/cancel/route";
import * as executeRoute from "@/app/api/v1/skills/[name]/execute/route";
import { db } from "@/lib/server/db";
import type { WebhookInfo, WebhookPayload } from "@/lib/types/webhook";
import { invoke } from "../helpers/route-client";
import { until, WebhookReceiver } from "../helpers/webhook-receiver";
import { allSecrets } from "@/lib/server/secrets/all-secrets-mask";
import { reloadTestConsole, setUpTestConsole, writeSkill, type TestConsole } from "../helpers/test-console";
import { createPerson, type TestPerson } from "../helpers/test-people";
import { createPersonaRow, deny, requestCall, requestWaitingCall } from "../api/approvals-fixtures";

const RETRY_FIRST_MS = 300;
/** Longer than any test here waits: an attempt at a hanging destination stays in flight throughout. */
const TIMEOUT_MS = 20_000;




let testConsole: TestConsole;
let receiver: WebhookReceiver;
let base: string;
let requester: TestPerson;
let approver: TestPerson;
let operator: TestPerson;

async function newWebhook(url: string, events: string[]): Promise<WebhookInfo> {
  const response = await invoke(webhooksRoute.POST, "/api/v1/webhooks", { body: { url, events, format: "json" } });
  expect(response.status).toBe(201);
  return ((await response.json()) as { webhook: WebhookInfo }).webhook;
}

async function setSecret(name: string, value: string, skills: string[]): Promise<void> {
  const response = await invoke(secretsRoute.POST, "/api/v1/secrets", { body: { name, value, skills } });
  expect(response.status).toBe(201);
}

beforeAll(async () => {
  testConsole = await setUpTestConsole({ WEBHOOK_RETRY_FIRST_MS: String(RETRY_FIRST_MS), WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS) });
  writeSkill(testConsole.root, "a14_wiper", { name: "a14_wiper", class: "dangerous", schema: { type: "object" } }, 'echo \'{"wiped": true}\'');
  writeSkill(testConsole.root, "a14_fail", { name: "a14_fail", class: "safe", schema: { type: "object" } }, "echo 'nope' >&2; exit 3");
  // Prints a line that is not JSON, the secret after 50 characters: the error quotes the first 80.
  writeSkill(testConsole.root, "a14_echo", { name: "a14_echo", class: "safe", schema: { type: "object" } }, 'cat >/dev/null; echo \'{"ok": true}\'');
  await reloadTestConsole();
  await createPersonaRow("dual", "dual-sign-required");
  requester = await createPerson("approver");
  approver = await createPerson("approver");
  operator = await createPerson("operator");
  receiver = new WebhookReceiver();
  base = await receiver.listen();
});

afterAll(async () => {
  await receiver?.close();
});

describe("webhooks: secret values", () => {
  it("never sends a deny reason's secret value, even when the secret is deleted while the delivery is retried", async () => {
    const value = "a14-rotated-secret-5e0c7d91b2";
    await setSecret("A14_ROTATED", value, ["a14_fail"]);
    // The destination is briefly down: the first attempt fails, the retry comes RETRY_FIRST_MS later.
    receiver.answer = (path, nth) => (path === "/rotated" && nth === 1 ? 503 : 200);
    const webhook = await newWebhook(`${base}/rotated`, ["approval.decided"]);
    const waiting = await requestWaitingCall("a14_wiper", "dual", requester.headers);
    expect((await deny(waiting.approvalId!, { reason: `pasted ${value} by mistake` }, approver.headers)).status).toBe(200);
    await until(() => (receiver.at("/rotated").length >= 1 ? true : undefined), "the first attempt");
    expect(receiver.at("/rotated")[0]!.body).not.toContain(value);
    // The admin reacts to the paste as one should: the secret is removed (or rotated) at once.
    const removed = await invoke(secretRoute.DELETE, "/api/v1/secrets/A14_ROTATED", { method: "DELETE", params: { name: "A14_ROTATED" } });
    expect(removed.status).toBe(200);
    await until(() => (receiver.at("/rotated").length >= 2 ? true : undefined), "the retry");
    // The value is still the live credential of whatever it opened; the retry must not carry it.
    for (const item of receiver.at("/rotated")) expect(item.body).not.toContain(value);
    await db().webhook.update({ where: { id: webhook.id }, data: { enabled: false } });
  });
});

describe("webhooks: events", () => {
  it("tells approvers that an approval they were asked for was decided when its requester cancels the call", async () => {
    const webhook = await newWebhook(`${base}/cancelled`, ["approval.requested", "approval.decided"]);
    const waiting = await requestWaitingCall("a14_wiper", "dual", requester.headers);
    await until(() => receiver.at("/cancelled").find((item) => item.headers["x-console-event"] === "approval.requested"), "approval.requested");
    const cancelled = await invoke(cancelRoute.POST, `/api/v1/calls/${waiting.call.id}/cancel`, { method: "POST", params: { id: waiting.call.id }, as: requester.headers });
    expect(cancelled.status).toBe(200);
    // The approval is decided (denied, "cancelled by …") in the database…
    expect((await db().approval.findUniqueOrThrow({ where: { id: waiting.approvalId! } })).status).toBe("denied");
    // …and the approvers, who got "Review and sign", are told.
    const decided = await until(
      () => receiver.at("/cancelled").find((item) => item.headers["x-console-event"] === "approval.decided"),
      "approval.decided after the cancel",
    );
    expect(JSON.parse(decided.body) as WebhookPayload).toMatchObject({ actor: requester.email, call: { id: waiting.call.id, status: "cancelled" }, approval: { id: waiting.approvalId, decision: "denied", reason: `cancelled by ${requester.email}` } });
    await db().webhook.update({ where: { id: webhook.id }, data: { enabled: false } });
  });
});

describe("webhooks: a hostile receiver", () => {
  it("one hanging destination and a burst of failed calls (any operator or agent makes them) do not hold up another destination's approval request", async () => {
    receiver.answer = (path) => (path === "/tarpit" ? "hang" : 200);
    const tarpit = await newWebhook(`${base}/tarpit`, ["call.failed"]);
    const prompt = await newWebhook(`${base}/prompt`, ["approval.requested"]);
    try {
      for (let i = 0; i < 20; i++) expect((await requestCall("a14_fail", { args: {}, wait: true }, operator.headers)).status).toBe(200);
      // The tarpit's first attempt hangs (for TIMEOUT_MS); its other nineteen deliveries wait behind it.
      await until(() => (receiver.at("/tarpit").length >= 1 ? true : undefined), "an attempt hanging at the tarpit");
      const waiting = await requestWaitingCall("a14_wiper", "dual", requester.headers);
      await until(
        () => receiver.at("/prompt").find((item) => (JSON.parse(item.body) as WebhookPayload).approval?.id === waiting.approvalId),
        "the approval request at the prompt destination",
      );
      // Told while the tarpit's first attempt still hangs: one attempt per destination at a time.
      expect(receiver.at("/tarpit")).toHaveLength(1);
    } finally {
      await db().webhook.update({ where: { id: tarpit.id }, data: { enabled: false } });
      await db().webhook.update({ where: { id: prompt.id }, data: { enabled: false } });
      receiver.answer = () => 200;
    }
  }, 120_000);
});

describe("webhooks: the delivery log and the event loop", () => {
  it("builds the mask of every secret once per change of the secrets, not per delivery of a page, with a few dozen PEM keys among them", async () => {
    // 40 secrets of 64 lines each: private keys and certificates, what the Secrets page is for.
    for (let s = 0; s < 40; s++) {
      const lines = Array.from({ length: 64 }, (_, l) => `${s.toString(36)}${l.toString(36)}`.padEnd(64, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".charAt((s * 7 + l) % 64)));
      await setSecret(`A14_PEM_${s}`, `-----BEGIN PRIVATE KEY-----\n${lines.join("\n")}\n-----END PRIVATE KEY-----`, ["a14_fail"]);
    }
    const webhook = await newWebhook(`${base}/log`, ["call.failed"]);
    await db().webhook.update({ where: { id: webhook.id }, data: { enabled: false } });
    // 200 logged deliveries of failed calls (the log's page size), each with an error text.
    const payload = JSON.stringify({ at: new Date().toISOString(), actor: "system", url: "/calls/x", call: { id: "x", skill: "a14_fail", status: "failed", exitCode: 3, error: "exited with code 3 ".repeat(25) }, approval: null, pack: null });
    await db().webhookDelivery.createMany({ data: Array.from({ length: 200 }, () => ({ webhookId: webhook.id, event: "call.failed", payload, status: "delivered", attempts: 1, nextAttemptAt: new Date(), createdAt: new Date() })) });
    // One mask of every secret, built once per version of the Secret table (hundreds of patterns for 40
    // PEM keys; built per row, a page of 50 took 522 ms of the event loop).
    const first = await allSecrets();
    expect((await allSecrets()).mask).toBe(first.mask);
    const response = await invoke(deliveriesRoute.GET, `/api/v1/webhooks/${webhook.id}/deliveries?limit=50`, { params: { id: webhook.id } });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { deliveries: unknown[] }).deliveries).toHaveLength(50);
    expect((await allSecrets()).mask).toBe(first.mask);
    await setSecret("A14_PEM_NEXT", "another-value-0123456789", ["a14_fail"]);
    expect((await allSecrets()).mask).not.toBe(first.mask);
  }, 120_000);
});

describe("ongrid execute: the event loop", () => {
  /** 60,000 keys of ~80 bytes each in the args (~5 MiB): within SKILL_ARGS_LIMIT_BYTES and SKILL_ARGS_MAX_NODES. */
  function manyKeys(): string {
    const filler = "x".repeat(70);
    return `{${Array.from({ length: 60_000 }, (_, i) => `"k${i}":"${filler}"`).join(",")}}`;
  }

  it("keeps params as text for the validation thread, as POST …/calls keeps its args (issue 10 point 1)", async () => {
    // Parsed whole on the main thread, 8 MiB of params stalled the console 601–1259 ms (calls' args: 39–248 ms).
    // Kept as text, they run, and only the rest of the body is parsed here — at most 64 KiB of it.
    const ran = await invoke(executeRoute.POST, "/api/v1/skills/a14_echo/execute", { body: `{"params":${manyKeys()}}`, params: { name: "a14_echo" } });
    expect(ran.status, (await ran.text()).slice(0, 300)).toBe(200);
    const beside = await invoke(executeRoute.POST, "/api/v1/skills/a14_echo/execute", { body: `{"params":{},"edge_id":"${"e".repeat(70_000)}"}`, params: { name: "a14_echo" } });
    expect(beside.status).toBe(413);
    expect(((await beside.json()) as { error: string }).error).toMatch(/^request body has \d+ bytes besides params; at most 65536 are allowed$/);
  }, 120_000);
});

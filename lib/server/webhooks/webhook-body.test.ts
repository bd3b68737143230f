import { describe, expect, it } from "vitest";
import { secretMasker } from "../secrets/secret-masking";
import { deliveryBody, nextAttemptAt, retryDelayMs, RETRY_WINDOW_MS, sentPayload, signatureOf, summaryOf } from "./webhook-body";
import type { WebhookPayload } from "@/lib/types/webhook";

const SECRET = "sk-live-0123456789abcdef";

function stored(payload: Partial<Omit<WebhookPayload, "id" | "event">>): string {
  return JSON.stringify({ at: "2026-12-06T10:00:00.000Z", actor: "ann@example.com", url: "/calls/c1", call: null, approval: null, pack: null, ...payload });
}

describe("retry schedule", () => {
  it("retries first within the configured delay, then three times longer each time, at most an hour", () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9].map((attempts) => retryDelayMs(attempts, 10_000))).toEqual([10_000, 30_000, 90_000, 270_000, 810_000, 2_430_000, 3_600_000, 3_600_000, 3_600_000]);
  });

  it("gives up when the next attempt would fall more than a day after the event", () => {
    expect(nextAttemptAt(0, 1, 1000, 10_000)).toBe(11_000);
    expect(nextAttemptAt(0, 9, RETRY_WINDOW_MS - 3_600_000, 10_000)).toBe(RETRY_WINDOW_MS);
    expect(nextAttemptAt(0, 9, RETRY_WINDOW_MS - 3_599_999, 10_000)).toBeNull();
  });
});

describe("bodies", () => {
  it("signs the exact bytes with HMAC-SHA256 (RFC 4231 test case 2)", () => {
    expect(signatureOf("Jefe", "what do ya want for nothing?")).toBe("sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    expect(signatureOf("whsec_test", '{"a":1}')).not.toBe(signatureOf("whsec_test", '{"a": 1}'));
  });

  it("escapes Slack's control characters and leaves the button out for a relative link", () => {
    const payload: WebhookPayload = { id: 7, event: "call.failed", at: "t", actor: "system", url: "/calls/c1", call: { id: "c1", skill: "<b>&", status: "failed", exitCode: 2, error: "x > y" }, approval: null, pack: null };
    expect(summaryOf(payload)).toBe("Call failed: <b>& (call c1) (failed, exit code 2) — x > y");
    expect(JSON.parse(deliveryBody("slack", payload))).toEqual({
      text: "Call failed: &lt;b&gt;&amp; (call c1) (failed, exit code 2) — x &gt; y (/calls/c1)",
      blocks: [{ type: "section", text: { type: "mrkdwn", text: "Call failed: &lt;b&gt;&amp; (call c1) (failed, exit code 2) — x &gt; y (/calls/c1)" } }],
    });
    expect(deliveryBody("json", payload)).toBe(JSON.stringify(payload));
  });
});

describe("sentPayload", () => {
  it("adds the id, event and absolute link, masks every secret value, and cuts long texts after masking", () => {
    const row = { id: 3, event: "approval.decided", payload: stored({ approval: { id: "a1", kind: "call", decision: "denied", reason: `oops ${SECRET} ${"x".repeat(600)}` } }) };
    const sent = sentPayload(row, secretMasker([SECRET]), "https://console.example.test");
    expect(sent.id).toBe(3);
    expect(sent.event).toBe("approval.decided");
    expect(sent.url).toBe("https://console.example.test/calls/c1");
    expect(sent.approval?.reason).toBe(`oops ••• ${"x".repeat(491)}…`);
    expect(JSON.stringify(sent)).not.toContain(SECRET);
  });

  it("masks a value the outbox cut in the middle", () => {
    const cut = `${"y".repeat(10)} ${SECRET.slice(0, 12)}…`;
    const sent = sentPayload({ id: 1, event: "call.failed", payload: stored({ call: { id: "c1", skill: "s", status: "failed", exitCode: 1, error: cut } }) }, secretMasker([SECRET]), null);
    expect(sent.call?.error).toBe(`${"y".repeat(10)} •••…`);
    expect(sent.url).toBe("/calls/c1");
  });

  it("masks a value however JSON escaped it", () => {
    const value = "pässwörd-<geheim>-42";
    const sent = sentPayload({ id: 1, event: "ping", payload: JSON.stringify({ at: "t", actor: "a", url: "/webhooks", call: null, approval: { id: "a", kind: "call", reason: value }, pack: null }).replace("ä", "\\u00e4") }, secretMasker([value]), null);
    expect(sent.approval?.reason).toBe("•••");
  });
});

/**
 * Request bodies in flight are bounded, and a body must keep arriving (lib/server/http/body-budget.ts).
 * The attack: 120 connections of one operator token each declared and sent 7 MB of a call body and
 * then stalled; the console held 820 MiB more for as long as they liked, and never answered them.
 * Now one sender (a person, their tokens included) may have BODY_BYTES_PER_OWNER_MAX in flight, past
 * which a body is refused at once (429, `Connection: close`, its bytes unread) — counted by the bytes
 * that arrived, not by the declared length (32 sockets declaring 8 MiB and sending nothing held it
 * all) —, at most BODIES_PER_OWNER_MAX bodies of one sender are read at once, and a body that sends
 * nothing for BODY_IDLE_MS is cut off (408).
 */
import { beforeAll, describe, expect, it } from "vitest";
import * as skillCallsRoute from "@/app/api/v1/skills/[name]/calls/route";
import { BODIES_PER_OWNER_MAX, BODY_BYTES_PER_OWNER_MAX, BODY_IDLE_MS, bodiesInFlight, bodyBytesInFlight } from "@/lib/server/http/body-budget";
import { createToken } from "../api/approvals-fixtures";
import { ensureDefaultTestWorker } from "../helpers/test-worker";
import { setUpTestConsole, writeSkill } from "../helpers/test-console";
import { createPerson, type TestPerson } from "../helpers/test-people";

let operator: TestPerson;

beforeAll(async () => {
  const testConsole = await setUpTestConsole();
  writeSkill(testConsole.root, "open", { name: "open", schema: { type: "object" } }, 'cat >/dev/null; echo "{}"');
  operator = await createPerson("operator");
  await ensureDefaultTestWorker();
});

/** A call body that sends `head` and then nothing until `finish()` (which ends it, incomplete). */
function stalledBody(head: string): { stream: ReadableStream<Uint8Array>; finish: () => void } {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
      c.enqueue(new TextEncoder().encode(head));
    },
  });
  return { stream, finish: () => controller.close() };
}

/** POST /api/v1/skills/open/calls with a streamed body declaring `declared` bytes. */
function postStreamed(headers: Record<string, string>, body: ReadableStream<Uint8Array>, declared: number): Promise<Response> {
  const request = new Request("http://127.0.0.1/api/v1/skills/open/calls", {
    method: "POST",
    body,
    duplex: "half",
    headers: { "content-type": "application/json", "content-length": String(declared), ...headers },
  } as RequestInit);
  return skillCallsRoute.POST(request, { params: Promise.resolve({ name: "open" }) });
}

describe("request bodies in flight", () => {
  it(`are at most ${BODY_BYTES_PER_OWNER_MAX / 1024 / 1024} MiB per person by the bytes that arrived, tokens included: the next is refused at once`, async () => {
    const sent = 8_000_000;
    const fitting = Math.floor(BODY_BYTES_PER_OWNER_MAX / sent);
    // Each sends 8 MB of a call body, then nothing.
    const bodies = Array.from({ length: fitting }, () => stalledBody(`{"args":{},"pad":"${"p".repeat(sent - 18)}`));
    const pending = bodies.map((body) => postStreamed(operator.headers, body.stream, sent + 10));
    await expect.poll(() => bodyBytesInFlight()).toBe(fitting * sent);

    const token = await createToken("default", operator.headers);
    for (const sender of [operator.headers, token]) {
      const refused = await postStreamed(sender, stalledBody(`{"args":{},"pad":"${"p".repeat(sent - 18)}`).stream, sent + 10);
      expect(refused.status).toBe(429);
      expect(refused.headers.get("connection")).toBe("close");
      expect(refused.headers.get("retry-after")).toBe("1");
      expect(((await refused.json()) as { error: unknown }).error).toEqual({
        code: "rate_limited",
        message: `request bodies of this person (their API tokens included) in flight would pass ${BODY_BYTES_PER_OWNER_MAX / 1024 / 1024} MiB, the most for one sender; retry when they are done`,
        details: { retryAfterSeconds: 1 },
      });
    }
    // Another person is not held up by them.
    const other = await createPerson("operator");
    const small = JSON.stringify({ args: {}, wait: false });
    const theirs = await postStreamed(other.headers, new Response(small).body!, Buffer.byteLength(small));
    expect(theirs.status).toBe(202);

    // Ended, they are refused for what they hold beside the args (413), and free their share.
    for (const body of bodies) body.finish();
    for (const answer of await Promise.all(pending)) expect(answer.status).toBe(413);
    expect(bodyBytesInFlight()).toBe(0);
  });

  it(`count what arrived, not what is declared, and at most ${BODIES_PER_OWNER_MAX} bodies of one sender at once`, async () => {
    // The attack: 32 sockets declaring 8 MiB each and sending nothing held the whole budget; every body of everyone answered 503.
    const sender = await createPerson("operator");
    const bodies = Array.from({ length: BODIES_PER_OWNER_MAX }, () => stalledBody("{"));
    const pending = bodies.map((body) => postStreamed(sender.headers, body.stream, 8_000_000));
    await expect.poll(() => bodiesInFlight()).toBe(BODIES_PER_OWNER_MAX);
    expect(bodyBytesInFlight()).toBe(BODIES_PER_OWNER_MAX);
    const refused = await postStreamed(sender.headers, stalledBody("{").stream, 10);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("connection")).toBe("close");
    expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(
      `this person (their API tokens included) has ${BODIES_PER_OWNER_MAX} request bodies on the way already, the most for one sender; retry when they are done`,
    );
    // Everyone else's bodies still go through.
    const small = JSON.stringify({ args: {}, wait: false });
    expect((await postStreamed(operator.headers, new Response(small).body!, Buffer.byteLength(small))).status).toBe(202);
    for (const body of bodies) body.finish();
    for (const answer of await Promise.all(pending)) expect(answer.status).toBe(400);
    expect(bodiesInFlight()).toBe(0);
  });

  it(`cut off a body that sends nothing for ${BODY_IDLE_MS / 1000} s: 408, the connection closed`, async () => {
    const body = stalledBody('{"args":{');
    const started = performance.now();
    const answer = await postStreamed(operator.headers, body.stream, 1000);
    expect(performance.now() - started).toBeGreaterThanOrEqual(BODY_IDLE_MS - 50);
    expect(answer.status).toBe(408);
    expect(answer.headers.get("connection")).toBe("close");
    expect(((await answer.json()) as { error: unknown }).error).toEqual({ code: "request_timeout", message: `the request body stalled: nothing arrived for ${BODY_IDLE_MS / 1000} s` });
    expect(bodyBytesInFlight()).toBe(0);
    body.finish();
  }, BODY_IDLE_MS + 10_000);
});

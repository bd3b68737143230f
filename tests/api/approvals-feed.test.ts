/**
 * The approvals feed, `GET /api/v1/approvals/events` (issue 11 point 2: the approvals badge and pages
 * update live): every change of what waits for a person — an approval requested, signed, approved,
 * denied, expired, voided or losing a demoted approver's signature; a call awaiting confirmation
 * created, confirmed, cancelled or expired — sends `change` on the stream, and nothing else does; a
 * person may hold at most 16 streams. Real route handlers, database and worker (both engines).
 */
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import * as approvalEventsRoute from "@/app/api/v1/approvals/events/route";
import * as cancelRoute from "@/app/api/v1/calls/[id]/cancel/route";
import * as userRoute from "@/app/api/v1/users/[id]/route";
import { APPROVAL_STREAMS_PER_HOLDER_MAX } from "@/lib/server/approvals/approval-feed";
import { expireDueApprovals } from "@/lib/server/approvals/expire-approvals";
import { db } from "@/lib/server/db";
import { invoke, readEvents, type ServerSentEvent } from "../helpers/route-client";
import { setUpTestConsole, writeSkill } from "../helpers/test-console";
import { createPerson, type TestPerson } from "../helpers/test-people";
import { confirm, createPersonaRow, deny, errorOf, requestCall, requestWaitingCall, sign, waitForStatus } from "./approvals-fixtures";

/** Longest wait for a change to reach the stream, in ms: it is sent within the event-loop turn after the commit. */
const CHANGE_WAIT_MS = 2_000;

let requester: TestPerson;
let approverA: TestPerson;
let approverB: TestPerson;
let viewer: TestPerson;

/** An open approvals stream: its events queue up as they arrive; take() waits for the next. */
interface Feed {
  take(ms?: number): Promise<ServerSentEvent | "none">;
  abort(): void;
}

/** Opens the approvals feed as `as`; resolves once its `ready` event arrived. */
async function openFeed(as: TestPerson | "admin" = "admin"): Promise<Feed> {
  const controller = new AbortController();
  const response = await invoke(approvalEventsRoute.GET, "/api/v1/approvals/events", { as: as === "admin" ? "admin" : as.headers, signal: controller.signal });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
  const events = readEvents(response);
  const queue: ServerSentEvent[] = [];
  const waiting: { wake: (() => void) | null } = { wake: null };
  void (async () => {
    for (;;) {
      const event = await events.next().catch(() => null);
      if (!event) return;
      queue.push(event);
      waiting.wake?.();
    }
  })();
  const take = async (ms = CHANGE_WAIT_MS): Promise<ServerSentEvent | "none"> => {
    const deadline = Date.now() + ms;
    while (queue.length === 0 && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        waiting.wake = resolve;
        setTimeout(resolve, Math.max(0, deadline - Date.now()));
      });
    }
    return queue.shift() ?? "none";
  };
  expect(await take()).toEqual({ event: "ready", data: "{}" });
  return { take, abort: () => controller.abort() };
}

async function expectChange(feed: Feed): Promise<void> {
  expect(await feed.take()).toEqual({ event: "change", data: "{}" });
}

/** Nothing comes on `feed` for `ms`. */
async function expectQuiet(feed: Feed, ms = 500): Promise<void> {
  expect(await feed.take(ms)).toBe("none");
}

/** `PATCH /api/v1/users/{id}` `{role: "viewer"}` for `person`, as the admin; expects 200. */
async function demoteToViewer(person: TestPerson): Promise<void> {
  const user = await db().user.findUniqueOrThrow({ where: { email: person.email } });
  expect((await invoke(userRoute.PATCH, `/api/v1/users/${user.id}`, { method: "PATCH", body: { role: "viewer" }, params: { id: user.id } })).status).toBe(200);
}

beforeAll(async () => {
  const testConsole = await setUpTestConsole({ MARKER_DIR: "" });
  const markerDir = path.join(testConsole.dir, "markers");
  fs.mkdirSync(markerDir);
  process.env.MARKER_DIR = markerDir;
  writeSkill(testConsole.root, "wiper", { name: "wiper", class: "dangerous", env_allow: ["MARKER_DIR"] }, 'echo run >> "$MARKER_DIR/wiper.runs"; echo \'{"wiped": true}\'');
  writeSkill(testConsole.root, "restart", { name: "restart", class: "mutating" }, "echo '{\"restarted\": true}'");
  writeSkill(testConsole.root, "peek", { name: "peek", class: "safe" }, "echo '{\"ok\": true}'");
  await createPersonaRow("dual", "dual-sign-required");
  await createPersonaRow("careful", "mutating-with-confirm");
  requester = await createPerson("approver");
  approverA = await createPerson("approver");
  approverB = await createPerson("approver");
  viewer = await createPerson("viewer");
});

describe("the approvals feed", () => {
  it("tells of a request, each signature and the approval, and nothing of a call that waits for no one", async () => {
    const feed = await openFeed(viewer);
    try {
      const ran = await requestCall("peek", { args: {} });
      expect(ran.status).toBe(200);
      await expectQuiet(feed);
      const { call, approvalId } = await requestWaitingCall("wiper", "dual", requester.headers);
      await expectChange(feed);
      expect((await sign(approvalId!, approverA.headers)).status).toBe(200);
      await expectChange(feed);
      expect((await sign(approvalId!, approverB.headers)).status).toBe(200);
      await expectChange(feed);
      expect(await waitForStatus(call.id, ["succeeded"])).toBe("succeeded");
      // A refused signature changes nothing.
      expect((await sign(approvalId!, approverA.headers)).status).toBe(409);
      await expectQuiet(feed);
    } finally {
      feed.abort();
    }
  });

  it("tells of a denial, a cancel, an expiry and a demoted approver's voided signature", async () => {
    const feed = await openFeed();
    try {
      const denied = await requestWaitingCall("wiper", "dual", requester.headers);
      await expectChange(feed);
      expect((await deny(denied.approvalId!, { reason: "not today" }, approverA.headers)).status).toBe(200);
      await expectChange(feed);

      const cancelled = await requestWaitingCall("wiper", "dual", requester.headers);
      await expectChange(feed);
      expect((await invoke(cancelRoute.POST, `/api/v1/calls/${cancelled.call.id}/cancel`, { method: "POST", params: { id: cancelled.call.id }, as: requester.headers })).status).toBe(200);
      await expectChange(feed);

      const expiring = await requestWaitingCall("wiper", "dual", requester.headers);
      await expectChange(feed);
      await db().approval.update({ where: { id: expiring.approvalId! }, data: { expiresAt: new Date(Date.now() - 1000) } });
      // The console's own sweep may expire it first: either way the feed tells of it once.
      await expireDueApprovals();
      await expectChange(feed);

      const signedOnce = await requestWaitingCall("wiper", "dual", requester.headers);
      await expectChange(feed);
      const demoted = await createPerson("approver");
      expect((await sign(signedOnce.approvalId!, demoted.headers)).status).toBe(200);
      await expectChange(feed);
      await demoteToViewer(demoted);
      await expectChange(feed);
      // A role change that voids no signature changes nothing of the queue.
      await demoteToViewer(await createPerson("operator"));
      await expectQuiet(feed);
    } finally {
      feed.abort();
    }
  });

  it("tells of a call awaiting confirmation when it is filed and when it is confirmed", async () => {
    const feed = await openFeed();
    try {
      const { call } = await requestWaitingCall("restart", "careful", requester.headers);
      expect(call.status).toBe("awaiting_confirmation");
      await expectChange(feed);
      expect((await confirm(call.id, approverA.headers, { wait: false })).status).toBe(202);
      await expectChange(feed);
    } finally {
      feed.abort();
    }
  });

  it("refuses a person's 17th stream with 429 and takes one again once a stream closes; refuses anonymous requests", async () => {
    const person = await createPerson("viewer");
    const feeds: Feed[] = [];
    try {
      for (let i = 0; i < APPROVAL_STREAMS_PER_HOLDER_MAX; i++) feeds.push(await openFeed(person));
      const refused = await invoke(approvalEventsRoute.GET, "/api/v1/approvals/events", { as: person.headers });
      expect(refused.status).toBe(429);
      expect(await errorOf(refused)).toMatchObject({ code: "rate_limited", message: "at most 16 approvals streams may be open at once per person (their API tokens included); close one first" });
      feeds.pop()!.abort();
      await expect.poll(async () => {
        const controller = new AbortController();
        const answer = await invoke(approvalEventsRoute.GET, "/api/v1/approvals/events", { as: person.headers, signal: controller.signal });
        controller.abort();
        return answer.status;
      }, { timeout: 2_000 }).toBe(200);
    } finally {
      for (const feed of feeds) feed.abort();
    }
    expect((await invoke(approvalEventsRoute.GET, "/api/v1/approvals/events", { as: "anonymous" })).status).toBe(401);
  });
});

import { AppError } from "../errors";
import { announce, onReplicaCatchUp, onReplicaMessage } from "../replica-bus";

/**
 * The approvals feed: every change of what waits for a person — an approval requested, signed,
 * denied, expired or voided; a call that awaits confirmation created, confirmed, cancelled or expired —
 * is told to the `GET /api/v1/approvals/events` streams of this replica at once, and to every other
 * replica over the replica bus (kind `approvals`), so the approvals badge and pages update live on every
 * replica (issue 11 point 2). A change carries no data: the pages read the approvals API again, as the
 * viewer's role allows.
 */

type Listener = () => void;

/** Interval of `: ping` comments that keep proxies from closing an idle stream, in ms. */
const HEARTBEAT_MS = 15_000;
/** Most approvals streams open at once on this replica (one per open browser tab, typically). */
export const APPROVAL_STREAMS_MAX = 512;
/** Most approvals streams one person may hold open at once (their API tokens' included). */
export const APPROVAL_STREAMS_PER_HOLDER_MAX = 16;

const FEED_KEY = Symbol.for("skill-console.approval-feed");
const feed = ((globalThis as Record<symbol, unknown>)[FEED_KEY] ??= { listeners: new Set<Listener>(), byHolder: new Map<string, number>() }) as {
  listeners: Set<Listener>;
  byHolder: Map<string, number>;
};

function tellListeners(): void {
  for (const listener of [...feed.listeners]) {
    try {
      listener();
    } catch (error) {
      console.error("approval feed: a listener failed:", error);
    }
  }
}

/**
 * Says that what waits for a person changed. Call it after the change is committed (the streams'
 * clients read the API again at once). Never throws.
 */
export function approvalsChanged(): void {
  tellListeners();
  announce({ kind: "approvals" });
}

/** Runs `listener` on every change of this replica's and of the others'; returns the unsubscribe function. */
export function onApprovalsChanged(listener: Listener): () => void {
  feed.listeners.add(listener);
  return () => feed.listeners.delete(listener);
}

onReplicaMessage("approvals", () => tellListeners());
// A LISTEN outage may have hidden another replica's change: the pages read again once it is back.
onReplicaCatchUp("approvals", () => tellListeners());

/**
 * Opens one approvals stream for `holder` (a person's key): `text/event-stream` bytes of `retry: 2000`,
 * an `event: ready` at once, an `event: change` (data `{}`) on each change (several changes within one
 * event-loop turn send one), and a `: ping` comment every HEARTBEAT_MS, until `signal` aborts. Throws
 * AppError `rate_limited` (429) past APPROVAL_STREAMS_PER_HOLDER_MAX streams of that holder and
 * `unavailable` (503) past APPROVAL_STREAMS_MAX on this replica.
 */
export function openApprovalsStream(holder: string, signal: AbortSignal): ReadableStream<Uint8Array> {
  const held = feed.byHolder.get(holder) ?? 0;
  if (held >= APPROVAL_STREAMS_PER_HOLDER_MAX) {
    throw new AppError("rate_limited", `at most ${APPROVAL_STREAMS_PER_HOLDER_MAX} approvals streams may be open at once per person (their API tokens included); close one first`, { retryAfterSeconds: 5 });
  }
  const total = [...feed.byHolder.values()].reduce((sum, n) => sum + n, 0);
  if (total >= APPROVAL_STREAMS_MAX) throw new AppError("unavailable", `the console has ${APPROVAL_STREAMS_MAX} approvals streams open, its most; retry shortly`, { retryAfterSeconds: 5 });
  feed.byHolder.set(holder, held + 1);
  const encoder = new TextEncoder();
  let close = () => undefined as void;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      let closed = false;
      let pending = false;
      const send = (text: string) => {
        if (closed) return;
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          close();
        }
      };
      const unsubscribe = onApprovalsChanged(() => {
        if (pending) return;
        pending = true;
        setImmediate(() => {
          pending = false;
          send("event: change\ndata: {}\n\n");
        });
      });
      const heartbeat = setInterval(() => send(": ping\n\n"), HEARTBEAT_MS);
      heartbeat.unref();
      close = () => {
        if (closed) return;
        closed = true;
        unsubscribe();
        clearInterval(heartbeat);
        const left = (feed.byHolder.get(holder) ?? 1) - 1;
        if (left <= 0) feed.byHolder.delete(holder);
        else feed.byHolder.set(holder, left);
        try {
          controller.close();
        } catch {
          // already closed by the client's going away
        }
      };
      if (signal.aborted) return close();
      signal.addEventListener("abort", () => close(), { once: true });
      send("retry: 2000\nevent: ready\ndata: {}\n\n");
    },
    cancel() {
      close();
    },
  });
}

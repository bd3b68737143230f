import { openEventStream, type EventStreamOptions, type StreamLimits } from "../http/event-streams";
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

/** Most approvals streams open at once on this replica (one per open browser tab, typically). */
export const APPROVAL_STREAMS_MAX = 512;
/** Most approvals streams one person may hold open at once (their API tokens' included). */
export const APPROVAL_STREAMS_PER_HOLDER_MAX = 16;
/** The approvals streams' limits. */
export const APPROVAL_STREAM_LIMITS: StreamLimits = { name: "approvals", perHolder: APPROVAL_STREAMS_PER_HOLDER_MAX, total: APPROVAL_STREAMS_MAX };

const FEED_KEY = Symbol.for("skill-console.approval-feed");
const feed = ((globalThis as Record<symbol, unknown>)[FEED_KEY] ??= { listeners: new Set<Listener>() }) as { listeners: Set<Listener> };

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
 * Opens one approvals stream for `reader`: `text/event-stream` bytes of `retry: 2000`, an `event: ready`
 * at once, an `event: change` (data `{}`) on each change (several changes within one event-loop turn
 * send one), held under APPROVAL_STREAM_LIMITS and ended as openEventStream says (client gone, not
 * reading, no longer allowed). Throws AppError `rate_limited` (429) past APPROVAL_STREAMS_PER_HOLDER_MAX
 * streams of that holder and `unavailable` (503) past APPROVAL_STREAMS_MAX on this replica.
 */
export function openApprovalsStream(reader: Pick<EventStreamOptions, "signal" | "holder" | "stillAllowed">): ReadableStream<Uint8Array> {
  return openEventStream({
    ...reader,
    limits: APPROVAL_STREAM_LIMITS,
    start(sink) {
      let pending = false;
      const unsubscribe = onApprovalsChanged(() => {
        if (pending) return;
        pending = true;
        setImmediate(() => {
          pending = false;
          sink.send("event: change\ndata: {}\n\n");
        });
      });
      sink.send("retry: 2000\nevent: ready\ndata: {}\n\n");
      return unsubscribe;
    },
  });
}

import "server-only";
import { AppError } from "../errors";
import { onAccessChanged } from "../auth/access-changes";

/**
 * What every long-lived server-sent event stream of the console shares (`GET /api/v1/calls/{id}/events`,
 * `GET /api/v1/approvals/events`; STYLE.md rule 7): a slot under per-person and per-replica limits,
 * a heartbeat, a bounded backlog for a client that stops reading, and the caller's identity checked
 * again on every access change and every heartbeat, so a stream never outlives the right to read it.
 */

/** The limits of one kind of stream: its name (in errors), most streams per holder, most on this replica. */
export interface StreamLimits {
  name: string;
  perHolder: number;
  total: number;
}

/** Interval of `: ping` comments that keep proxies from closing an idle stream, and of the identity re-check, in ms. */
export const STREAM_HEARTBEAT_MS = 15_000;
/** Bytes queued for a client past which producers that can wait (a replay) wait for it to read. */
export const STREAM_READY_BYTES = 256 * 1024;
/**
 * Bytes queued for a client that does not read past which its stream is ended and the queue dropped
 * (a viewer that stopped reading a chatty call's stream held every line in memory). An EventSource
 * reconnects and resumes after its Last-Event-ID.
 */
export const STREAM_BACKLOG_MAX_BYTES = 8 * 1024 * 1024;

interface SlotCounts {
  total: number;
  byHolder: Map<string, number>;
}

const SLOTS_KEY = Symbol.for("skill-console.stream-slots");
const slots = ((globalThis as Record<symbol, unknown>)[SLOTS_KEY] ??= new Map<string, SlotCounts>()) as Map<string, SlotCounts>;

/**
 * Reserves room for one more stream of `limits.name` held by `holder` (a person's key: their sessions'
 * and API tokens' streams count together). Returns the release function (idempotent). Throws AppError
 * `rate_limited` (429, Retry-After) past `limits.perHolder` streams of that holder and `unavailable`
 * (503) past `limits.total` on this replica.
 */
export function reserveStreamSlot(limits: StreamLimits, holder: string): () => void {
  let counts = slots.get(limits.name);
  if (!counts) slots.set(limits.name, (counts = { total: 0, byHolder: new Map() }));
  const held = counts.byHolder.get(holder) ?? 0;
  if (held >= limits.perHolder) {
    throw new AppError("rate_limited", `at most ${limits.perHolder} ${limits.name} streams may be open at once per person (their API tokens included); close one first`, { retryAfterSeconds: 5 });
  }
  if (counts.total >= limits.total) throw new AppError("unavailable", `the console has ${limits.total} ${limits.name} streams open, its most; retry shortly`, { retryAfterSeconds: 5 });
  counts.total += 1;
  counts.byHolder.set(holder, held + 1);
  let released = false;
  const own = counts;
  return () => {
    if (released) return;
    released = true;
    own.total -= 1;
    const left = (own.byHolder.get(holder) ?? 1) - 1;
    if (left <= 0) own.byHolder.delete(holder);
    else own.byHolder.set(holder, left);
  };
}

/** Streams of `limits.name` open on this replica now: in all, and of `holder` when given. */
export function openStreamCount(limits: StreamLimits, holder?: string): number {
  const counts = slots.get(limits.name);
  if (!counts) return 0;
  return holder === undefined ? counts.total : (counts.byHolder.get(holder) ?? 0);
}

/** What a stream's producer writes to: text out, a wait for a slow client, and the end. */
export interface EventStreamSink {
  /** Queues `text` for the client. Ends the stream (queue dropped, the connection cut) past STREAM_BACKLOG_MAX_BYTES queued. A no-op once closed. */
  send(text: string): void;
  /** True while fewer than STREAM_READY_BYTES wait for the client: a producer that can wait should, once it is false. */
  readonly hasRoom: boolean;
  /** Resolves when fewer than STREAM_READY_BYTES wait for the client, or the stream closed. */
  ready(): Promise<void>;
  /** Ends the stream after what is queued (idempotent). */
  close(): void;
  /** True once the stream ended, whatever ended it. */
  readonly closed: boolean;
}

/** How to open one event stream (openEventStream). */
export interface EventStreamOptions {
  limits: StreamLimits;
  /** Who holds it: `userId` is the person whose access changes re-check it. */
  holder: { key: string; userId: string };
  /** Aborts when the client leaves (the request's signal). */
  signal: AbortSignal;
  /** Whether the caller may still read the stream (identified afresh); false or a throw ends it. */
  stillAllowed: () => Promise<boolean>;
  /** Sends the first bytes and wires the producer; returns its cleanup, run once whatever ends the stream. */
  start: (sink: EventStreamSink) => (() => void) | void;
}

/**
 * Opens one server-sent event stream: reserves its slot (throws reserveStreamSlot's AppErrors, before
 * the first byte), sends `: ping` every STREAM_HEARTBEAT_MS, identifies the caller again once it hears
 * access changes (closing the gap since the request was identified), at each ping, and at once when
 * their access changes (onAccessChanged), and ends the stream — releasing its slot and
 * running the producer's cleanup exactly once — when the client leaves (`signal`), cancels, stops reading
 * past STREAM_BACKLOG_MAX_BYTES, may no longer read it, or the producer closes it. Returns the bytes.
 */
export function openEventStream(options: EventStreamOptions): ReadableStream<Uint8Array> {
  const release = reserveStreamSlot(options.limits, options.holder.key);
  const encoder = new TextEncoder();
  let finish: (how: "close" | "drop") => void = () => release();
  // Set by start: wakes the ready() waiters once the client has read (the runtime calls pull).
  let wakeReady = () => undefined as void;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        let closed = false;
        let waiting: Array<() => void> = [];
        let cleanup: (() => void) | void = undefined;
        let checking = false;
        let checkAgain = false;
        const wake = () => {
          const woken = waiting;
          waiting = [];
          for (const resolve of woken) resolve();
        };
        // One identification at a time; a change that arrives during one is checked again after it (that
        // one may have read the credentials before the change).
        const check = () => {
          if (closed) return;
          if (checking) {
            checkAgain = true;
            return;
          }
          checking = true;
          checkAgain = false;
          const done = () => {
            checking = false;
            if (checkAgain) check();
          };
          options.stillAllowed().then(
            (allowed) => {
              if (!allowed) finish("close");
              done();
            },
            (error: unknown) => {
              console.error(`${options.limits.name} stream: identifying its reader again failed; ending it:`, error);
              finish("close");
              done();
            },
          );
        };
        const heartbeat = setInterval(() => {
          sink.send(": ping\n\n");
          check();
        }, STREAM_HEARTBEAT_MS);
        heartbeat.unref();
        const stopListening = onAccessChanged((userId) => {
          if (userId === null || userId === options.holder.userId) check();
        });
        const onAbort = () => finish("drop");
        finish = (how) => {
          if (closed) return;
          closed = true;
          release();
          clearInterval(heartbeat);
          stopListening();
          options.signal.removeEventListener("abort", onAbort);
          wake();
          try {
            if (how === "drop") controller.error(new Error(`${options.limits.name} stream ended`));
            else controller.close();
          } catch {
            // already closed or errored by the runtime
          }
          try {
            cleanup?.();
          } catch (error) {
            console.error(`${options.limits.name} stream: its cleanup failed:`, error);
          }
        };
        const sink: EventStreamSink = {
          send(text) {
            if (closed) return;
            try {
              controller.enqueue(encoder.encode(text));
            } catch {
              return finish("drop");
            }
            if ((controller.desiredSize ?? 0) < STREAM_READY_BYTES - STREAM_BACKLOG_MAX_BYTES) finish("drop");
          },
          get hasRoom() {
            return (controller.desiredSize ?? 0) > 0;
          },
          ready() {
            if (closed || (controller.desiredSize ?? 0) > 0) return Promise.resolve();
            return new Promise<void>((resolve) => waiting.push(resolve));
          },
          close: () => finish("close"),
          get closed() {
            return closed;
          },
        };
        wakeReady = wake;
        if (options.signal.aborted) return finish("drop");
        options.signal.addEventListener("abort", onAbort);
        cleanup = options.start(sink);
        if (closed) return cleanup?.();
        // A sign-out or revocation between the request's identification and the subscription above
        // was told to nobody: the reader is identified once more now that changes are heard.
        check();
      },
      pull() {
        wakeReady();
      },
      cancel() {
        finish("drop");
      },
    },
    new ByteLengthQueuingStrategy({ highWaterMark: STREAM_READY_BYTES }),
  );
}

import { defineStoredJson, storedTextOf, stringifyJson } from "../http/stored-json";
import { IN_PARTS, payloadText } from "./call-payloads";
import type { Call, CallEvent } from "@/lib/types/call";
import { isTerminalStatus } from "@/lib/types/call";
import { AppError } from "../errors";
import { subscribe } from "./call-bus";
import { readStoredEvents } from "./call-events";
import { getCall } from "./read-calls";

/** Stored events read per database page while replaying a timeline. */
const REPLAY_PAGE = 2000;
/** Interval of `: ping` comments that keep proxies from closing an idle stream, in ms. */
const HEARTBEAT_MS = 15_000;
/**
 * How often the stream re-reads the status of a call it follows, in ms: a safety net only (every
 * stored line and end is published on the call bus, from this replica or announced by another), e.g.
 * for an end announced while this replica's bus was reconnecting, or a second console on one SQLite file.
 */
const POLL_MS = 2_000;

/** Most call event streams open at once on this console (each holds a connection, a subscription and a poll). */
export const CALL_STREAMS_MAX = 256;
/** Most call event streams one person may hold open at once, their sessions' and API tokens' together. */
export const CALL_STREAMS_PER_HOLDER_MAX = 16;

const STREAMS_KEY = Symbol.for("skill-console.call-streams");
const openStreams: { total: number; byHolder: Map<string, number> } = ((globalThis as Record<symbol, unknown>)[STREAMS_KEY] ??= { total: 0, byHolder: new Map() }) as {
  total: number;
  byHolder: Map<string, number>;
};

/**
 * Reserves room for one more event stream of `holder` (a person's key): a viewer opening
 * 2,000 streams made every request of the console wait for seconds, then minutes (issue 10 point 1).
 * Returns the release function (idempotent). Throws AppError `rate_limited` (429, Retry-After) past
 * CALL_STREAMS_PER_HOLDER_MAX for that holder, `unavailable` (503) past CALL_STREAMS_MAX in all.
 */
export function reserveEventStream(holder: string): () => void {
  const held = openStreams.byHolder.get(holder) ?? 0;
  if (held >= CALL_STREAMS_PER_HOLDER_MAX) {
    throw new AppError("rate_limited", `at most ${CALL_STREAMS_PER_HOLDER_MAX} call event streams may be open at once per person (their API tokens included); close one first`, { retryAfterSeconds: 5 });
  }
  if (openStreams.total >= CALL_STREAMS_MAX) throw new AppError("unavailable", `the console has ${CALL_STREAMS_MAX} call event streams open, its most; retry shortly`, { retryAfterSeconds: 5 });
  openStreams.total += 1;
  openStreams.byHolder.set(holder, held + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    openStreams.total -= 1;
    const left = (openStreams.byHolder.get(holder) ?? 1) - 1;
    if (left <= 0) openStreams.byHolder.delete(holder);
    else openStreams.byHolder.set(holder, left);
  };
}

/** The largest seq a timeline line can have: CallEvent.seq is a 32-bit Int on both engines. */
const MAX_SEQ = 2 ** 31 - 1;

/** Formats one timeline event as a server-sent event (`id` = seq, so Last-Event-ID resumes after it). */
export function formatLineEvent(event: CallEvent): string {
  return `id: ${event.seq}\nevent: line\ndata: ${JSON.stringify(event)}\n\n`;
}

/**
 * Formats the final server-sent event carrying the call's end state, on one `data:` line. The stored
 * result goes in as the skill printed it (stringifyJson), and a pretty-printed one holds raw line
 * breaks, each of which would end the data line; in valid JSON a raw CR or LF can only be whitespace
 * between tokens (inside strings they are escaped), so each becomes a space, meaning unchanged.
 */
export function formatEndEvent(call: Call): string {
  return `event: end\ndata: ${stringifyJson({ call }).replace(/[\r\n]/g, " ")}\n\n`;
}

/**
 * Reads `call`'s args into it when they are stored in parts (over INLINE_PAYLOAD_MAX_LENGTH): the end
 * event serialises them synchronously, which PostgreSQL cannot do for parts (the stream failed without
 * its end event on PostgreSQL for such a call). A no-op for args kept in the row.
 */
async function readArgsWhole(call: Call): Promise<void> {
  if (typeof storedTextOf(call, "args") !== "object") return;
  defineStoredJson(call, "args", await payloadText(call.id, "args", IN_PARTS), {});
}

/**
 * Opens the server-sent event stream of a call's timeline (DESIGN.md `GET /api/v1/calls/{id}/events`,
 * STYLE.md rule 7): the call is loaded before the first byte (AppError `not_found` otherwise), stored
 * events after `afterSeq` (the Last-Event-ID) are replayed, then live lines follow while the call runs,
 * then one `end` event with the call, and the stream closes. Lines arrive live from the console's call
 * bus (from this replica's workers, or read from the table when another replica announces them), with a slow re-read of the call's status as a safety net (its
 * stored lines are replayed before the end event). `signal` aborts when the client leaves; everything
 * is cleaned up then. `holder` (who opened it) counts against reserveEventStream's limits, released
 * when the stream ends (AppError `rate_limited` or `unavailable` past them, before the first byte).
 * `afterSeq` is clamped to 0…MAX_SEQ, so any Last-Event-ID replays a valid suffix.
 */
export async function openCallEventStream(id: string, afterSeq: number, signal: AbortSignal, holder: string): Promise<ReadableStream<Uint8Array>> {
  // A Last-Event-ID past any seq a call can have means "after everything" (the database would refuse a
  // number beyond its 32-bit seq column — PostgreSQL refuses one past 2^31 - 1 — and fail the stream); NaN or a negative one means "from the start".
  afterSeq = Number.isNaN(afterSeq) || afterSeq < 0 ? 0 : Math.min(Math.floor(afterSeq), MAX_SEQ);
  await getCall(id);
  const release = reserveEventStream(holder);
  const encoder = new TextEncoder();
  let cleanup = () => {};
  return new ReadableStream<Uint8Array>({
    start(controller) {
      let lastSeq = afterSeq;
      let closed = false;
      let replaying = true;
      const held: Array<CallEvent | { end: Call }> = [];
      const timers: NodeJS.Timeout[] = [];
      let unsubscribe = () => {};

      const send = (text: string) => {
        if (!closed) controller.enqueue(encoder.encode(text));
      };
      const emit = (event: CallEvent) => {
        if (event.seq <= lastSeq) return;
        lastSeq = event.seq;
        send(formatLineEvent(event));
      };
      // A worker's report of many lines becomes one chunk on the wire, not one per line.
      const emitAll = (events: readonly CallEvent[]) => {
        let text = "";
        for (const event of events) {
          if (event.seq <= lastSeq) continue;
          lastSeq = event.seq;
          text += formatLineEvent(event);
        }
        if (text !== "") send(text);
      };
      const close = () => {
        if (closed) return;
        closed = true;
        cleanup();
        controller.close();
      };
      const end = (call: Call) => {
        void readArgsWhole(call).then(
          () => send(formatEndEvent(call)),
          (error: unknown) => console.error(`event stream of call ${id}: reading its args for the end event failed:`, error),
        ).finally(close);
      };
      cleanup = () => {
        closed = true;
        release();
        unsubscribe();
        for (const timer of timers) clearInterval(timer);
        signal.removeEventListener("abort", onAbort);
      };
      const onAbort = () => {
        if (closed) return;
        cleanup();
        try {
          controller.close();
        } catch {
          // already closed by the runtime
        }
      };
      signal.addEventListener("abort", onAbort);
      // A client gone before the stream started never fires "abort".
      if (signal.aborted) return onAbort();
      timers.push(setInterval(() => send(": ping\n\n"), HEARTBEAT_MS));
      // At once, so the answer's headers go out now: a quiet call's stream otherwise sent nothing until
      // its next line, and the page said "connecting" for as long as the call was silent.
      send(": connected\n\n");

      const replayStored = async () => {
        for (;;) {
          const page = await readStoredEvents(id, lastSeq, REPLAY_PAGE);
          for (const event of page) emit(event);
          if (page.length < REPLAY_PAGE || closed) return;
        }
      };

      // An end from the bus replays the stored lines after this stream's last one first: whatever
      // reached the table and not this stream (another replica's, read late) is sent before the end.
      const endAfterReplay = (call: Call) => void replayStored().then(() => end(call), () => end(call));
      unsubscribe = subscribe(id, {
        onEvents: (events) => (replaying ? held.push(...events) : emitAll(events)),
        seen: () => lastSeq,
        onEnd: (call) => (replaying ? held.push({ end: call }) : endAfterReplay(call)),
      });

      const follow = async () => {
        // Subscribed first: whatever is stored and published from here on is seen at least once.
        await replayStored();
        const call = await getCall(id);
        if (isTerminalStatus(call.status)) {
          await replayStored();
          return end(call);
        }
        replaying = false;
        for (const item of held) "end" in item ? endAfterReplay(item.end) : emit(item);
        while (!closed) {
          await new Promise((resolve) => setTimeout(resolve, POLL_MS));
          if (closed) return;
          // The status only: lines come from the bus, and the stored ones are replayed before the end.
          const now = await getCall(id);
          if (isTerminalStatus(now.status)) {
            await replayStored();
            return end(now);
          }
        }
      };
      follow().catch((error: unknown) => {
        console.error(`event stream of call ${id} failed:`, error);
        send(`event: error\ndata: ${JSON.stringify({ message: "the event stream failed; reload the call" })}\n\n`);
        close();
      });
    },
    cancel() {
      cleanup();
    },
  });
}

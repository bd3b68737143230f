import { stringifyJson } from "../http/stored-json";
import type { Call, CallEvent } from "@/lib/types/call";
import { isTerminalStatus } from "@/lib/types/call";
import { db } from "../db";
import { subscribe } from "./call-bus";
import { toCallEvent } from "./call-record";
import { getCall } from "./read-calls";

/** Stored events read per database page while replaying a timeline. */
const REPLAY_PAGE = 2000;
/** Interval of `: ping` comments that keep proxies from closing an idle stream, in ms. */
const HEARTBEAT_MS = 15_000;
/**
 * How often the stream re-reads a call it follows, in ms: a safety net only (the console is the one
 * writer of every timeline and publishes each stored line), e.g. for a call ended by another process
 * sharing the database.
 */
const POLL_MS = 2_000;

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
 * Opens the server-sent event stream of a call's timeline (DESIGN.md `GET /api/v1/calls/{id}/events`,
 * STYLE.md rule 7): the call is loaded before the first byte (AppError `not_found` otherwise), stored
 * events after `afterSeq` (the Last-Event-ID) are replayed, then live lines follow while the call runs,
 * then one `end` event with the call, and the stream closes. Lines arrive live from the console's call
 * bus (workers report to the console), with a slow re-read of the database as a safety net. `signal` aborts when the client leaves; everything is cleaned up then.
 * `afterSeq` is clamped to 0…Number.MAX_SAFE_INTEGER, so any Last-Event-ID replays a valid suffix.
 */
export async function openCallEventStream(id: string, afterSeq: number, signal: AbortSignal): Promise<ReadableStream<Uint8Array>> {
  // A Last-Event-ID past any seq a call can have means "after everything" (the database would refuse a
  // number beyond 64 bits and fail the stream); NaN or a negative one means "from the start".
  afterSeq = Number.isNaN(afterSeq) || afterSeq < 0 ? 0 : Math.min(Math.floor(afterSeq), Number.MAX_SAFE_INTEGER);
  await getCall(id);
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
        send(formatEndEvent(call));
        close();
      };
      cleanup = () => {
        closed = true;
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
      timers.push(setInterval(() => send(": ping\n\n"), HEARTBEAT_MS));

      const replayStored = async () => {
        for (;;) {
          const page = await db().callEvent.findMany({
            where: { callId: id, seq: { gt: lastSeq } },
            orderBy: { seq: "asc" },
            take: REPLAY_PAGE,
          });
          for (const row of page) emit(toCallEvent(row));
          if (page.length < REPLAY_PAGE || closed) return;
        }
      };

      unsubscribe = subscribe(id, {
        onEvents: (events) => (replaying ? held.push(...events) : emitAll(events)),
        onEnd: (call) => (replaying ? held.push({ end: call }) : end(call)),
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
        for (const item of held) "end" in item ? end(item.end) : emit(item);
        while (!closed) {
          await new Promise((resolve) => setTimeout(resolve, POLL_MS));
          if (closed) return;
          const now = await getCall(id);
          await replayStored();
          if (isTerminalStatus(now.status)) return end(now);
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

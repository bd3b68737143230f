import { defineStoredJson, storedTextOf, stringifyJson } from "../http/stored-json";
import { IN_PARTS, payloadText } from "./call-payloads";
import type { Call, CallEvent } from "@/lib/types/call";
import { isTerminalStatus } from "@/lib/types/call";
import { subscribe } from "./call-bus";
import { readStoredEvents } from "./call-events";
import { getCall } from "./read-calls";
import { openEventStream, type EventStreamOptions, type StreamLimits } from "../http/event-streams";

/** Stored events read per database page while replaying a timeline. */
const REPLAY_PAGE = 2000;
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
/** The call event streams' limits (a viewer opening 2,000 streams made every request wait for minutes: issue 10 point 1). */
export const CALL_STREAM_LIMITS: StreamLimits = { name: "call event", perHolder: CALL_STREAMS_PER_HOLDER_MAX, total: CALL_STREAMS_MAX };

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
 * events after `afterSeq` (the Last-Event-ID) are replayed at the pace the client reads them, then live
 * lines follow while the call runs, then one `end` event with the call, and the stream closes. Lines
 * arrive live from the console's call bus (from this replica's workers, or read from the table when
 * another replica announces them), with a slow re-read of the call's status as a safety net (its
 * stored lines are replayed before the end event). The stream is held under CALL_STREAM_LIMITS and
 * ends as openEventStream says (client gone, not reading, no longer allowed; AppError `rate_limited` or
 * `unavailable` past the limits, before the first byte). `afterSeq` is clamped to 0…MAX_SEQ, so any
 * Last-Event-ID replays a valid suffix.
 */
export async function openCallEventStream(
  id: string,
  afterSeq: number,
  reader: Pick<EventStreamOptions, "signal" | "holder" | "stillAllowed">,
): Promise<ReadableStream<Uint8Array>> {
  // A Last-Event-ID past any seq a call can have means "after everything" (the database would refuse a
  // number beyond its 32-bit seq column — PostgreSQL refuses one past 2^31 - 1 — and fail the stream); NaN or a negative one means "from the start".
  afterSeq = Number.isNaN(afterSeq) || afterSeq < 0 ? 0 : Math.min(Math.floor(afterSeq), MAX_SEQ);
  await getCall(id);
  return openEventStream({
    ...reader,
    limits: CALL_STREAM_LIMITS,
    start(sink) {
      let lastSeq = afterSeq;
      let replaying = true;
      // Live lines that arrive while the stored ones replay are not kept (a reader that does not read
      // had every line of a chatty call held for it): they are in the table before they are published,
      // and the replay reads on until it has caught up. Only an end is held.
      let missedLive = false;
      let heldEnd: Call | null = null;

      const emit = (event: CallEvent) => {
        if (event.seq <= lastSeq) return;
        lastSeq = event.seq;
        sink.send(formatLineEvent(event));
      };
      // A worker's report of many lines becomes one chunk on the wire, not one per line.
      const emitAll = (events: readonly CallEvent[]) => {
        let text = "";
        for (const event of events) {
          if (event.seq <= lastSeq) continue;
          lastSeq = event.seq;
          text += formatLineEvent(event);
        }
        if (text !== "") sink.send(text);
      };
      const end = (call: Call) => {
        void readArgsWhole(call).then(
          () => sink.send(formatEndEvent(call)),
          (error: unknown) => console.error(`event stream of call ${id}: reading its args for the end event failed:`, error),
        ).finally(() => sink.close());
      };
      // At once, so the answer's headers go out now: a quiet call's stream otherwise sent nothing until
      // its next line, and the page said "connecting" for as long as the call was silent.
      sink.send(": connected\n\n");

      const replayStored = async () => {
        for (;;) {
          // As fast as the client reads: a 200,000-line timeline, or a page of long lines that escape
          // to six times their size, is never queued whole (past the backlog bound it would be dropped).
          await sink.ready();
          if (sink.closed) return;
          const page = await readStoredEvents(id, lastSeq, REPLAY_PAGE);
          for (const event of page) {
            emit(event);
            if (!sink.hasRoom) await sink.ready();
            if (sink.closed) return;
          }
          if (page.length < REPLAY_PAGE) return;
        }
      };
      // Replays until no live line arrived meanwhile; with `thenLive`, goes live in the same turn as
      // that last look, so no line published in between is missed.
      const replayUntilCaughtUp = async (thenLive: boolean) => {
        do {
          missedLive = false;
          await replayStored();
        } while (missedLive && !sink.closed);
        if (thenLive) replaying = false;
      };

      // An end from the bus replays the stored lines after this stream's last one first: whatever
      // reached the table and not this stream (another replica's, read late) is sent before the end.
      const endAfterReplay = (call: Call) => void replayStored().then(() => end(call), () => end(call));
      const unsubscribe = subscribe(id, {
        onEvents: (events) => {
          if (replaying) missedLive = true;
          else emitAll(events);
        },
        seen: () => lastSeq,
        onEnd: (call) => {
          if (replaying) heldEnd = call;
          else endAfterReplay(call);
        },
      });

      const follow = async () => {
        // Subscribed first: whatever is stored and published from here on is seen at least once.
        await replayUntilCaughtUp(false);
        const call = await getCall(id);
        if (isTerminalStatus(call.status)) {
          await replayStored();
          return end(call);
        }
        await replayUntilCaughtUp(true);
        if (heldEnd) return endAfterReplay(heldEnd);
        while (!sink.closed) {
          await new Promise((resolve) => setTimeout(resolve, POLL_MS));
          if (sink.closed) return;
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
        sink.send(`event: error\ndata: ${JSON.stringify({ message: "the event stream failed; reload the call" })}\n\n`);
        sink.close();
      });
      return unsubscribe;
    },
  });
}

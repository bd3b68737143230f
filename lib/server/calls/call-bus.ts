import type { Call, CallEvent } from "@/lib/types/call";
import { isTerminalStatus } from "@/lib/types/call";
import { statements } from "../db-statements";
import { announce, onReplicaCatchUp, onReplicaMessage } from "../replica-bus";
import { readStoredEvents } from "./call-events";
import { toCall } from "./call-record";
import { selectCallSql } from "./call-sql";

/** What a live subscriber of one call receives. */
export interface CallListener {
  /**
   * Lines just stored, in seq order (one report of a worker: often one line, up to thousands in a
   * flood); may repeat lines already delivered (drop them by seq). Omitted by a listener of the end only.
   */
  onEvents?(events: readonly CallEvent[]): void;
  /**
   * The largest seq this listener already holds (an event stream's last id sent). Lines another replica
   * stored are read after the smallest of these (and after what the channel delivered), never after a
   * listener's claim alone: a stream opened with Last-Event-ID 2^31-1 must not move anyone else's.
   */
  seen?(): number;
  onEnd(call: Call): void;
}

interface Channel {
  listeners: Set<CallListener>;
  /** The largest seq this channel handed to its listeners (only what it delivered itself): another replica's lines are read after it. */
  lastSeq: number;
  /** Reads of another replica's lines and end, one after another. */
  chain: Promise<void>;
  /** A read is queued on `chain` and not begun: later announcements ride on it. */
  readQueued: boolean;
  /** The queued read must also look at the call's status (an `end` was announced, or a catch-up). */
  readEnd: boolean;
  /** Reads queued or running on `chain`: while any is, this replica's own lines and end go through the table too. */
  reads: number;
}

/** Timeline lines read per query when another replica's lines are fetched. */
const READ_PAGE = 2000;

const BUS_KEY = Symbol.for("skill-console.call-bus");
const store = globalThis as unknown as { [BUS_KEY]?: Map<string, Channel> };
const channels = (store[BUS_KEY] ??= new Map<string, Channel>());

function channelOf(callId: string): Channel {
  let channel = channels.get(callId);
  if (!channel) {
    channel = { listeners: new Set(), lastSeq: 0, chain: Promise.resolve(), readQueued: false, readEnd: false, reads: 0 };
    channels.set(callId, channel);
  }
  return channel;
}

function deliverEvents(channel: Channel, events: readonly CallEvent[]): void {
  if (events.length === 0) return;
  channel.lastSeq = Math.max(channel.lastSeq, events[events.length - 1]!.seq);
  for (const listener of channel.listeners) listener.onEvents?.(events);
}

function deliverEnd(callId: string, channel: Channel, call: Call): void {
  if (channels.get(callId) === channel) channels.delete(callId);
  for (const listener of channel.listeners) listener.onEnd(call);
}

/**
 * Publishes timeline events of a call to its live subscribers (event streams) in this replica, and
 * announces them to the other replicas (`events` `{callId, seq}`: they read the lines from the table).
 * Called once the events are stored (committed), so a subscriber that replays the stored timeline and
 * then follows the bus misses nothing (duplicates are dropped by seq).
 */
export function publishEvents(callId: string, events: readonly CallEvent[]): void {
  if (events.length === 0) return;
  announce({ kind: "events", callId, seq: events[events.length - 1]!.seq });
  const channel = channels.get(callId);
  if (!channel) return;
  // Lines before these may be stored by another replica and not yet read here (a worker behind a
  // load balancer reports to A, then to B): delivering these first would skip them for good, since
  // listeners drop what is below their last seq. Then these are read from the table, in order, too.
  if (channel.reads > 0 || events[0]!.seq > channel.lastSeq + 1) return readFromTable(callId, false);
  deliverEvents(channel, events);
}

/** Tells subscribers the call reached its end state (already stored) and closes its channel; other replicas hear `end`. */
export function publishEnd(callId: string, call: Call): void {
  announce({ kind: "end", callId });
  const channel = channels.get(callId);
  if (!channel) return;
  // Lines still being read from the table go first: the end closes the listeners' streams.
  if (channel.reads > 0) return readFromTable(callId, true);
  deliverEnd(callId, channel, call);
}

/**
 * Subscribes to a call's live events and end, whichever replica's worker reports them (DESIGN.md
 * "Several replicas": lines another replica stored are read from the table when it announces them).
 * Subscribe before reading the stored timeline and the call's status, so nothing published meanwhile
 * is lost. Returns the unsubscribe function.
 */
export function subscribe(callId: string, listener: CallListener): () => void {
  const channel = channelOf(callId);
  channel.listeners.add(listener);
  return () => {
    channel.listeners.delete(listener);
    if (channel.listeners.size === 0 && channels.get(callId) === channel) channels.delete(callId);
  };
}

/**
 * Reads what another replica stored for a call this replica follows: its lines after the larger of the
 * channel's lastSeq and the smallest seq its listeners hold (when a listener wants lines), and with
 * `withEnd` its status, ending the channel when it is
 * terminal (its last lines first). Reads of one channel run one after another; announcements that
 * arrive while one waits ride on it.
 */
function readFromTable(callId: string, withEnd: boolean): void {
  const channel = channels.get(callId);
  if (!channel) return;
  channel.readEnd ||= withEnd;
  if (channel.readQueued) return;
  channel.readQueued = true;
  channel.reads += 1;
  channel.chain = channel.chain
    .then(async () => {
      channel.readQueued = false;
      const checkEnd = channel.readEnd;
      channel.readEnd = false;
      const readLines = async () => {
        const wanting = [...channel.listeners].filter((listener) => listener.onEvents);
        if (wanting.length === 0) return;
        // Every listener holds what it has seen: nothing below the smallest of those is needed (a
        // stream that replayed a call of 10,000 lines is not sent them again from the channel's 0).
        const held = Math.min(...wanting.map((listener) => listener.seen?.() ?? 0));
        let after = Math.max(channel.lastSeq, held);
        for (;;) {
          const page = await readStoredEvents(callId, after, READ_PAGE);
          if (page.length > 0) after = page[page.length - 1]!.seq;
          deliverEvents(channel, page);
          if (page.length < READ_PAGE || channels.get(callId) !== channel) return;
        }
      };
      await readLines();
      if (!checkEnd || channels.get(callId) !== channel) return;
      const row = await selectCallSql(statements(), callId);
      if (!row || !isTerminalStatus(row.status as Call["status"])) return;
      await readLines();
      deliverEnd(callId, channel, toCall(row));
    })
    .catch((error: unknown) => console.error(`call bus: reading call ${callId} from the table failed:`, error))
    .finally(() => {
      channel.reads -= 1;
    });
}

onReplicaMessage("events", (message) => {
  const channel = channels.get(message.callId);
  if (channel && message.seq > channel.lastSeq) readFromTable(message.callId, false);
});
onReplicaMessage("end", (message) => readFromTable(message.callId, true));
// After this replica did not listen for a while: every followed call is read again, lines and status.
onReplicaCatchUp("call-bus", () => {
  for (const callId of channels.keys()) readFromTable(callId, true);
});

/**
 * Resolves with the call once it reaches its end state (`wait: true` requests), or null when `signal`
 * aborts first (the client left). Subscribe-before-read as `subscribe`: callers check the stored
 * status after calling this, through `check`, which may end the wait at once. `recheckEveryMs`
 * (PostgreSQL: several replicas) runs `check` again at that period, a safety net for an end announced
 * while this replica's bus was down.
 */
export function waitForEnd(callId: string, signal: AbortSignal | undefined, check: () => Promise<Call | null>, recheckEveryMs: number | null = null): Promise<Call | null> {
  return new Promise((resolve, reject) => {
    let settled = false;
    let poll: NodeJS.Timeout | null = null;
    const settle = () => {
      settled = true;
      unsubscribe();
      if (poll) clearInterval(poll);
      signal?.removeEventListener("abort", onAbort);
    };
    const finish = (call: Call | null) => {
      if (settled) return;
      settle();
      resolve(call);
    };
    const fail = (error: unknown) => {
      if (settled) return;
      settle();
      reject(error);
    };
    const onAbort = () => finish(null);
    const unsubscribe = subscribe(callId, { onEnd: (call) => finish(call) });
    signal?.addEventListener("abort", onAbort, { once: true });
    if (signal?.aborted) return finish(null);
    check().then((call) => {
      if (call) finish(call);
    }, fail);
    if (recheckEveryMs !== null && !settled) {
      poll = setInterval(() => void check().then((call) => call && finish(call), () => undefined), recheckEveryMs);
      poll.unref();
    }
  });
}

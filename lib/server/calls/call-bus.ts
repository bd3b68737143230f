import type { Call, CallEvent } from "@/lib/types/call";

/** What a live subscriber of one call receives. */
export interface CallListener {
  /** Lines just stored, in seq order (one report of a worker: often one line, up to thousands in a flood). */
  onEvents(events: readonly CallEvent[]): void;
  onEnd(call: Call): void;
}

interface Channel {
  listeners: Set<CallListener>;
}

const BUS_KEY = Symbol.for("skill-console.call-bus");
const store = globalThis as unknown as { [BUS_KEY]?: Map<string, Channel> };
const channels = (store[BUS_KEY] ??= new Map<string, Channel>());

function channelOf(callId: string): Channel {
  let channel = channels.get(callId);
  if (!channel) {
    channel = { listeners: new Set() };
    channels.set(callId, channel);
  }
  return channel;
}

/**
 * Publishes timeline events of a call to its live subscribers (event streams). Called once the events
 * are stored, so a subscriber that replays the stored timeline and then follows the bus misses nothing
 * (duplicates are dropped by seq).
 */
export function publishEvents(callId: string, events: readonly CallEvent[]): void {
  const channel = channels.get(callId);
  if (!channel) return;
  if (events.length === 0) return;
  for (const listener of channel.listeners) listener.onEvents(events);
}

/** Tells subscribers the call reached its end state (already stored) and closes its channel. */
export function publishEnd(callId: string, call: Call): void {
  const channel = channels.get(callId);
  if (!channel) return;
  channels.delete(callId);
  for (const listener of channel.listeners) listener.onEnd(call);
}

/**
 * Subscribes to a call's live events and end in this console (the console is the one writer of
 * every call's timeline: workers report to it). Subscribe before reading the stored timeline and the
 * call's status, so nothing published meanwhile is lost. Returns the unsubscribe function.
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
 * Resolves with the call once it reaches its end state in this console (`wait: true` requests), or
 * null when `signal` aborts first (the client left). Subscribe-before-read as `subscribe`: callers
 * check the stored status after calling this, through `check`, which may end the wait at once.
 * `recheckEveryMs` (PostgreSQL: several replicas) runs `check` again at that period, for a call whose
 * end another replica publishes.
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
    const unsubscribe = subscribe(callId, { onEvents: () => undefined, onEnd: (call) => finish(call) });
    signal?.addEventListener("abort", onAbort, { once: true });
    if (signal?.aborted) return finish(null);
    check().then((call) => {
      if (call) finish(call);
    }, fail);
    // Another replica's worker may end the call: its end is published there, not here (until the
    // replicas share a bus), so the stored status is read again every `recheckEveryMs`.
    if (recheckEveryMs !== null && !settled) {
      poll = setInterval(() => void check().then((call) => call && finish(call), () => undefined), recheckEveryMs);
      poll.unref();
    }
  });
}

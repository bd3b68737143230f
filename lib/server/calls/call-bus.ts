import type { Call, CallEvent } from "@/lib/types/call";

/** What a live subscriber of one call receives. */
export interface CallListener {
  onEvent(event: CallEvent): void;
  onEnd(call: Call): void;
}

interface Channel {
  listeners: Set<CallListener>;
  /** Events published but not yet written to the database, oldest first. */
  unflushed: CallEvent[];
}

const BUS_KEY = Symbol.for("skill-console.call-bus");
const store = globalThis as unknown as { [BUS_KEY]?: Map<string, Channel> };
const channels = (store[BUS_KEY] ??= new Map<string, Channel>());

/**
 * Opens the live channel of a call this process runs. Until it is opened, subscribe() reports the call
 * as not local, and the event stream falls back to reading the database.
 */
export function openChannel(callId: string): void {
  if (!channels.has(callId)) channels.set(callId, { listeners: new Set(), unflushed: [] });
}

/** Publishes one timeline event to live subscribers and keeps it as unflushed until markFlushed(). */
export function publishEvent(callId: string, event: CallEvent): void {
  const channel = channels.get(callId);
  if (!channel) return;
  channel.unflushed.push(event);
  for (const listener of channel.listeners) listener.onEvent(event);
}

/** Drops unflushed events up to and including `seq` once they are in the database. */
export function markFlushed(callId: string, seq: number): void {
  const channel = channels.get(callId);
  if (!channel) return;
  const firstKept = channel.unflushed.findIndex((event) => event.seq > seq);
  channel.unflushed = firstKept === -1 ? [] : channel.unflushed.slice(firstKept);
}

/** Tells subscribers the call reached its end state (already stored) and closes the channel. */
export function publishEnd(callId: string, call: Call): void {
  const channel = channels.get(callId);
  if (!channel) return;
  channels.delete(callId);
  for (const listener of channel.listeners) listener.onEnd(call);
}

/**
 * Subscribes to a call run by this process. Returns null when the call has no open channel here
 * (finished, or owned by another console); otherwise the events not yet in the database — taken in the
 * same tick as the subscription, so stored + unflushed + live events cover the timeline without a gap —
 * and an unsubscribe function.
 */
export function subscribe(callId: string, listener: CallListener): { unflushed: CallEvent[]; unsubscribe: () => void } | null {
  const channel = channels.get(callId);
  if (!channel) return null;
  channel.listeners.add(listener);
  return { unflushed: [...channel.unflushed], unsubscribe: () => channel.listeners.delete(listener) };
}

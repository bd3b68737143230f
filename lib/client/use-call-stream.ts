"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import type { Call, CallEvent, CallWithEvents } from "@/lib/types/call";
import { queryKeys } from "./query-keys";

/** Lines per chunk of the timeline: a full chunk never changes again, so its rendering can be memoised. */
export const TIMELINE_CHUNK_SIZE = 250;

/** Time lines wait in the buffer before one state update renders them together. */
const FLUSH_DELAY_MS = 40;

/**
 * Where the event stream stands: `connecting` before the first byte, `live` while following,
 * `reconnecting` after an error the browser retries (resuming with Last-Event-ID), `fallback` once the
 * browser gave up (the caller then polls the call), `ended` after the `end` event.
 */
export type CallStreamState = "connecting" | "live" | "reconnecting" | "fallback" | "ended";

/** What useCallStream returns: the timeline in chunks, its length and the stream's state. */
export interface CallStream {
  /** The timeline in order, split in chunks of TIMELINE_CHUNK_SIZE; every chunk but the last is frozen. */
  chunks: readonly (readonly CallEvent[])[];
  /** Number of lines in `chunks`. */
  lineCount: number;
  state: CallStreamState;
}

function appendToChunks(chunks: readonly (readonly CallEvent[])[], lines: CallEvent[]): (readonly CallEvent[])[] {
  const next = chunks.slice();
  let last = next.pop()?.slice() ?? [];
  for (const line of lines) {
    if (last.length === TIMELINE_CHUNK_SIZE) {
      next.push(last);
      last = [];
    }
    last.push(line);
  }
  next.push(last);
  return next;
}

function parseData<T>(event: Event): T | null {
  try {
    return JSON.parse((event as MessageEvent<string>).data) as T;
  } catch {
    return null;
  }
}

/**
 * Owns the live timeline of call `id` (STYLE.md: one hook owns a stream): opens an EventSource on
 * `GET /api/v1/calls/{id}/events`, appends each `line` event once (by `seq`, so replays after a
 * reconnect and `storedEvents` from a refetch of the call never duplicate a line), batches renders
 * every FLUSH_DELAY_MS, and on `end` writes the final Call into the call's query and closes the
 * stream. On a stream error it refetches the call; `storedEvents` (the call's stored timeline, e.g.
 * from polling) are merged the same way, which is the fallback when the stream is gone.
 */
export function useCallStream(id: string, storedEvents: readonly CallEvent[] | undefined): CallStream {
  const queryClient = useQueryClient();
  const [chunks, setChunks] = useState<readonly (readonly CallEvent[])[]>([]);
  const [lineCount, setLineCount] = useState(0);
  const [state, setState] = useState<CallStreamState>("connecting");
  const lastSeq = useRef(0);
  const buffer = useRef<CallEvent[]>([]);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);

  const flush = useCallback(() => {
    if (timer.current !== null) clearTimeout(timer.current);
    timer.current = null;
    const lines = buffer.current;
    if (lines.length === 0) return;
    buffer.current = [];
    setChunks((current) => appendToChunks(current, lines));
    setLineCount((count) => count + lines.length);
  }, []);

  const enqueue = useCallback(
    (event: CallEvent) => {
      // Lines come in seq order from either source; anything at or below the last seen is a replay.
      if (event.seq <= lastSeq.current) return;
      lastSeq.current = event.seq;
      buffer.current.push(event);
      if (timer.current === null) timer.current = setTimeout(flush, FLUSH_DELAY_MS);
    },
    [flush],
  );

  useEffect(() => {
    if (!storedEvents) return;
    for (const event of storedEvents) enqueue(event);
  }, [storedEvents, enqueue]);

  useEffect(() => {
    let ended = false;
    const source = new EventSource(`/api/v1/calls/${encodeURIComponent(id)}/events`);
    const detailKey = queryKeys.calls.detail(id);

    source.addEventListener("open", () => setState("live"));
    source.addEventListener("line", (event) => {
      const line = parseData<CallEvent>(event);
      if (line && typeof line.seq === "number") enqueue(line);
    });
    source.addEventListener("end", (event) => {
      ended = true;
      source.close();
      flush();
      setState("ended");
      const body = parseData<{ call: Call }>(event);
      if (body?.call) {
        queryClient.setQueryData<CallWithEvents>(detailKey, (old) => (old ? { ...old, ...body.call } : old));
      }
      // Refresh every call query: this one (stored timeline, server truth) and the history lists.
      void queryClient.invalidateQueries({ queryKey: queryKeys.calls.all });
    });
    source.addEventListener("error", () => {
      if (ended) return;
      // CLOSED: the browser will not retry (an HTTP error or a wrong content type); otherwise it reconnects.
      setState(source.readyState === EventSource.CLOSED ? "fallback" : "reconnecting");
      void queryClient.invalidateQueries({ queryKey: detailKey });
    });

    return () => {
      source.close();
      // Render what is buffered now: a remount (StrictMode) replays only lines already seen.
      flush();
    };
  }, [id, enqueue, flush, queryClient]);

  return { chunks, lineCount, state };
}

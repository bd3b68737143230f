"use client";

import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import type { Call, CallEvent, CallWithEvents } from "@/lib/types/call";
import { queryKeys } from "./query-keys";

/** Time lines wait in the buffer before one state update renders them together. */
const FLUSH_DELAY_MS = 40;

/**
 * Where the event stream stands: `connecting` before the first byte, `live` while following,
 * `reconnecting` after an error the browser retries (resuming with Last-Event-ID), `fallback` once the
 * browser gave up (the caller then polls the call), `ended` after the `end` event.
 */
export type CallStreamState = "connecting" | "live" | "reconnecting" | "fallback" | "ended";

/** What useCallStream returns: the timeline, its length and the stream's state. */
export interface CallStream {
  /**
   * The timeline in seq order, append-only: entries `[0, lineCount)` never change, so a flush costs
   * O(new lines) however long the timeline is (200,000 lines included). Read it up to `lineCount`.
   */
  lines: readonly CallEvent[];
  /** The same timeline as one chunk (`[lines]`), a new array whenever `lineCount` grows (for memos). */
  chunks: readonly (readonly CallEvent[])[];
  /** Number of lines rendered so far. */
  lineCount: number;
  state: CallStreamState;
}

function parseData<T>(event: Event): T | null {
  try {
    return JSON.parse((event as MessageEvent<string>).data) as T;
  } catch {
    return null;
  }
}

/**
 * Owns the live timeline of call `id` (STYLE.md: one hook owns a stream): takes `storedEvents` (the
 * call query's stored timeline) first, then opens an EventSource on `GET /api/v1/calls/{id}/events`
 * resuming after the last of them (`?lastEventId=`), so no line is downloaded twice; appends each
 * `line` event once (by `seq`, so replays after a reconnect and `storedEvents` from a refetch never
 * duplicate a line), batches renders every FLUSH_DELAY_MS (each flush O(new lines)), and on `end`
 * writes the final Call into the call's query (without refetching its timeline), refreshes the other
 * call queries and closes the stream. On an error the browser retries (a dropped connection, a stream
 * the server cut for a backlog its reader did not drain) nothing is fetched: the browser resumes with
 * Last-Event-ID and the stream replays what was missed, its end included. Once the browser gives up
 * (CLOSED) it refetches the call; `storedEvents` (the call's stored timeline, e.g. from polling) are
 * merged the same way, which is the fallback when the stream is gone.
 */
export function useCallStream(id: string, storedEvents: readonly CallEvent[] | undefined): CallStream {
  const queryClient = useQueryClient();
  const lines = useRef<CallEvent[]>([]);
  const [lineCount, setLineCount] = useState(0);
  const [state, setState] = useState<CallStreamState>("connecting");
  const lastSeq = useRef(0);
  const buffer = useRef<CallEvent[]>([]);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);

  const flush = useCallback(() => {
    if (timer.current !== null) clearTimeout(timer.current);
    timer.current = null;
    const fresh = buffer.current;
    if (fresh.length === 0) return;
    buffer.current = [];
    // Pushed in place (O(new lines)); the count is what re-renders, and earlier entries never change.
    for (const event of fresh) lines.current.push(event);
    setLineCount(lines.current.length);
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
    // Resume after the lines already held (the stored timeline of the call query, or a previous mount):
    // the stream replays only what the page has not loaded yet, so no line is downloaded twice.
    const resumeAfter = lastSeq.current > 0 ? `?lastEventId=${lastSeq.current}` : "";
    const source = new EventSource(`/api/v1/calls/${encodeURIComponent(id)}/events${resumeAfter}`);
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
      // Refresh the history lists; this call's query already holds the final Call, and refetching it would
      // download its whole stored timeline again (200,000 lines for a chatty call).
      void queryClient.invalidateQueries({
        queryKey: queryKeys.calls.all,
        predicate: (query) => JSON.stringify(query.queryKey) !== JSON.stringify(detailKey),
      });
    });
    source.addEventListener("error", () => {
      if (ended) return;
      // CLOSED: the browser will not retry (an HTTP error or a wrong content type); otherwise it reconnects.
      // Reconnecting, the browser resumes after the last line it got: refetching the call now would
      // download its whole stored timeline again (the 200,000-line flood, each time the stream is cut).
      if (source.readyState !== EventSource.CLOSED) {
        setState("reconnecting");
        return;
      }
      setState("fallback");
      void queryClient.invalidateQueries({ queryKey: detailKey });
    });

    return () => {
      source.close();
      // Render what is buffered now: a remount (StrictMode) replays only lines already seen.
      flush();
    };
  }, [id, enqueue, flush, queryClient]);

  // A new one-chunk array per count, so memos over `chunks` (failureExcerpt) see the growth.
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const chunks = useMemo(() => [lines.current], [lineCount]);
  return { lines: lines.current, chunks, lineCount, state };
}

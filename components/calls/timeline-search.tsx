"use client";

import { useEffect, useMemo, useRef, useState } from "react";
import type { CallEvent } from "@/lib/types/call";

/** Quiet time after the last keystroke before a search runs (Enter runs it at once). */
const SEARCH_DEBOUNCE_MS = 250;

/** What useTimelineSearch returns: the box's text, the applied needle, the matches and the current one. */
export interface TimelineSearch {
  input: string;
  setInput: (value: string) => void;
  /** The lowercase text searched for ("" when no search is active). */
  needle: string;
  /** Indexes (into the timeline) of the matching lines, ascending. */
  matches: readonly number[];
  /** Position in `matches` of the focused match, -1 when none. */
  current: number;
  /** Enter: applies a pending input at once, otherwise moves to the next (or, `back`, previous) match. */
  submit: (back: boolean) => void;
}

/** Indexes in `[from, to)` of `haystacks` whose text contains `needle` (both lowercase). */
export function findMatches(haystacks: readonly string[], needle: string, from: number, to: number): number[] {
  const found: number[] = [];
  for (let i = from; i < to; i++) if (haystacks[i]?.includes(needle)) found.push(i);
  return found;
}

/** True when the sorted `matches` holds `index` (binary search: rows ask this on every render). */
export function hasMatch(matches: readonly number[], index: number): boolean {
  let low = 0;
  let high = matches.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    const value = matches[mid] as number;
    if (value === index) return true;
    if (value < index) low = mid + 1;
    else high = mid - 1;
  }
  return false;
}

/**
 * Case-insensitive search over the first `lineCount` of the append-only `lines`: debounced (or on
 * Enter), over a lowercase copy built once per line and only while a search is active; lines that
 * arrive later are scanned incrementally. `onFocus(index)` is called with the timeline index of the
 * match that becomes current (the first one for a new needle, then Enter / Shift+Enter).
 */
export function useTimelineSearch(lines: readonly CallEvent[], lineCount: number, onFocus: (index: number) => void): TimelineSearch {
  const [input, setInput] = useState("");
  const [needle, setNeedle] = useState("");
  const [current, setCurrent] = useState(-1);
  const lower = useRef<string[]>([]);
  const scan = useRef<{ needle: string; scanned: number; matches: number[] }>({ needle: "", scanned: 0, matches: [] });

  useEffect(() => {
    const timer = setTimeout(() => setNeedle(input.trim().toLowerCase()), SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [input]);

  const matches = useMemo(() => {
    if (needle === "") return [];
    for (let i = lower.current.length; i < lineCount; i++) lower.current.push((lines[i]?.line ?? "").toLowerCase());
    const state = scan.current;
    if (state.needle !== needle) scan.current = { needle, scanned: 0, matches: [] };
    const fresh = findMatches(lower.current, needle, scan.current.scanned, lineCount);
    scan.current.scanned = lineCount;
    if (fresh.length > 0) scan.current.matches = scan.current.matches.length === 0 ? fresh : scan.current.matches.concat(fresh);
    return scan.current.matches;
  }, [lines, lineCount, needle]);

  // A new needle focuses its first match; new lines arriving keep the current one.
  const focusedNeedle = useRef("");
  useEffect(() => {
    if (focusedNeedle.current === needle) return;
    if (needle === "" || matches.length > 0) focusedNeedle.current = needle;
    const first = matches[0];
    setCurrent(first === undefined ? -1 : 0);
    if (first !== undefined) onFocus(first);
  }, [needle, matches, onFocus]);

  function submit(back: boolean) {
    const wanted = input.trim().toLowerCase();
    if (wanted !== needle) return setNeedle(wanted);
    if (matches.length === 0) return;
    const next = current < 0 ? 0 : (current + (back ? matches.length - 1 : 1)) % matches.length;
    setCurrent(next);
    onFocus(matches[next] as number);
  }

  return { input, setInput, needle, matches, current, submit };
}

/**
 * The timeline's search box: a labelled input with "n of m" beside it; Enter jumps to the next match,
 * Shift+Enter to the previous one, Escape clears.
 */
export function TimelineSearchBox({ search }: { search: TimelineSearch }) {
  const { input, needle, matches, current } = search;
  return (
    <div className="flex items-center gap-2">
      <label htmlFor="timeline-search" className="sr-only">
        Search the timeline
      </label>
      <input
        id="timeline-search"
        type="search"
        autoComplete="off"
        spellCheck={false}
        placeholder="Search stderr"
        value={input}
        onChange={(event) => search.setInput(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === "Enter") {
            event.preventDefault();
            search.submit(event.shiftKey);
          } else if (event.key === "Escape" && input !== "") {
            event.preventDefault();
            search.setInput("");
          }
        }}
        className="h-6 w-44 rounded border border-zinc-700 bg-zinc-900 px-2 font-mono text-xs text-zinc-100 placeholder:text-zinc-500 focus-visible:outline-2 focus-visible:outline-blue-500"
      />
      {needle !== "" ? (
        <span className="text-xs text-zinc-400 tabular-nums" data-testid="timeline-search-count" aria-live="polite">
          {matches.length === 0 ? "no match" : `${current + 1} of ${matches.length}`}
        </span>
      ) : null}
    </div>
  );
}

"use client";

import { memo, type ReactNode } from "react";
import { cx } from "@/components/ui/class-names";
import { formatClockTime, formatInstantTitle } from "@/lib/client/format-time";
import type { CallEvent } from "@/lib/types/call";

/** Height of one timeline row in px (leading-5): fixed, so the timeline can be windowed. */
export const TIMELINE_ROW_HEIGHT = 20;

/** `line` with every case-insensitive occurrence of the lowercase `needle` wrapped in a mark. */
function highlight(line: string, needle: string): ReactNode {
  if (needle === "") return line;
  const lower = line.toLowerCase();
  const parts: ReactNode[] = [];
  let from = 0;
  for (let at = lower.indexOf(needle); at !== -1; at = lower.indexOf(needle, from)) {
    parts.push(line.slice(from, at), <mark key={at} className="rounded-sm bg-amber-300/80 text-zinc-950">{line.slice(at, at + needle.length)}</mark>);
    from = at + needle.length;
  }
  parts.push(line.slice(from));
  return parts;
}

/**
 * One timeline line, one row high: seq, local time (HH:MM:SS.mmm; zone and UTC instant on hover) and
 * the text, truncated with an ellipsis (the full line on hover, and below the log once clicked).
 * System lines stand out; a search match has its needle marked, the focused match a ring.
 */
export const TimelineRow = memo(function TimelineRow({
  event,
  needle,
  current,
  expanded,
  onToggle,
}: {
  event: CallEvent;
  /** Lowercase search text to mark ("" for none or when this line does not match). */
  needle: string;
  current: boolean;
  expanded: boolean;
  onToggle: (seq: number) => void;
}) {
  const system = event.stream === "system";
  return (
    <div
      className={cx(
        // On a phone the clock column gives its width to the text (the time shows on the line read whole).
        "grid h-full cursor-default grid-cols-[2.5rem_minmax(0,1fr)] gap-x-2 px-2 hover:bg-white/[0.04] sm:grid-cols-[3.25rem_6.75rem_minmax(0,1fr)] sm:gap-x-3 sm:px-3",
        system && "bg-sky-400/[0.06]",
        needle !== "" && "bg-amber-300/[0.08]",
        current && "ring-1 ring-amber-300 ring-inset",
        expanded && "bg-white/[0.08]",
      )}
      data-seq={event.seq}
      data-stream={event.stream}
      data-testid="timeline-row"
      aria-current={current || undefined}
      onClick={() => onToggle(event.seq)}
    >
      <span className="text-right text-zinc-600 tabular-nums select-none">{event.seq}</span>
      <time dateTime={event.at} title={formatInstantTitle(event.at)} className="hidden text-zinc-500 tabular-nums select-none sm:block">
        {formatClockTime(event.at)}
      </time>
      <span className={cx("truncate whitespace-pre", system ? "text-sky-300 italic" : "text-zinc-100")} title={event.line.length > 120 ? event.line : undefined}>
        {system ? <span className="mr-2 text-[10px] font-semibold tracking-wider text-sky-400/80 uppercase not-italic">system</span> : null}
        {highlight(event.line, needle)}
      </span>
    </div>
  );
});

"use client";

import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { cx } from "@/components/ui/class-names";
import { VirtualList } from "@/components/ui/virtual-list";
import { formatClockTime } from "@/lib/client/format-time";
import type { CallStream, CallStreamState } from "@/lib/client/use-call-stream";
import { TimelineRow, TIMELINE_ROW_HEIGHT } from "./timeline-row";
import { hasMatch, TimelineSearchBox, useTimelineSearch } from "./timeline-search";
import { isTerminalStatus, type CallEvent, type CallStatus } from "@/lib/types/call";

/** Distance from the bottom (px) under which the timeline counts as followed. */
const FOLLOW_SLACK_PX = 24;

type TimelineBadge = { tone: "blue" | "amber" | "neutral" | "green"; label: string; pulse?: boolean };

const STATE_BADGE: Record<CallStreamState, TimelineBadge> = {
  connecting: { tone: "neutral", label: "connecting" },
  live: { tone: "blue", label: "live", pulse: true },
  reconnecting: { tone: "amber", label: "reconnecting", pulse: true },
  fallback: { tone: "amber", label: "stream lost · polling" },
  ended: { tone: "neutral", label: "complete" },
};

const QUEUED_BADGE: TimelineBadge = { tone: "neutral", label: "queued" };

/** The log box's height: content-sized once the call ended, a steady frame while it runs or waits. */
const BOX_HEIGHT = {
  finished: "max-h-[24rem]",
  queued: "min-h-[8rem] max-h-[65vh]",
  running: "min-h-[20rem] max-h-[65vh]",
} as const;

/** Lines per part of the text download's Blob (keeps each joined string small). */
const DOWNLOAD_PART = 5000;

/** Saves `lines` as `seq<TAB>ISO time<TAB>stream<TAB>line` text, built in the browser from the loaded timeline. */
function downloadTimeline(lines: readonly CallEvent[], count: number) {
  const parts: string[] = [];
  for (let from = 0; from < count; from += DOWNLOAD_PART) {
    let part = "";
    for (let i = from; i < Math.min(count, from + DOWNLOAD_PART); i++) {
      const event = lines[i];
      if (event) part += `${event.seq}\t${event.at}\t${event.stream}\t${event.line}\n`;
    }
    parts.push(part);
  }
  const url = URL.createObjectURL(new Blob(parts, { type: "text/plain;charset=utf-8" }));
  const link = document.createElement("a");
  link.href = url;
  link.download = "stderr-timeline.txt";
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/**
 * The call's stderr timeline as a terminal-like log, full width with its own scroll, windowed (fixed
 * row height: only the rows in view are in the DOM, so 200,000 lines stay fluid). While the reader is
 * at the bottom the view follows new lines; scrolling up pauses that and offers "Jump to latest".
 * A search box marks matches ("n of m", Enter / Shift+Enter to move), a click on a line shows it whole
 * below the log, and "Download" saves the loaded timeline as text. The badge says how the stream is
 * doing (live, reconnecting, polling, complete) — or `queued` while the call waits for a slot.
 */
export function CallTimeline({ stream, status }: { stream: CallStream; status: CallStatus }) {
  const box = useRef<HTMLDivElement | null>(null);
  const [following, setFollowingState] = useState(true);
  const followingRef = useRef(true);
  const lastScrollTop = useRef(0);
  const setFollowing = useCallback((value: boolean) => {
    followingRef.current = value;
    setFollowingState(value);
  }, []);
  const [expandedSeq, setExpandedSeq] = useState<number | null>(null);
  const finished = isTerminalStatus(status);
  const { lines, lineCount } = stream;
  // Queued until its first line: the "started" system line arrives before the refetched status does.
  const queued = status === "queued" && lineCount === 0 && (stream.state === "connecting" || stream.state === "live");
  // A call that ended while the stream was down is complete all the same (its timeline came by polling).
  const badge = queued ? QUEUED_BADGE : STATE_BADGE[finished && stream.state !== "live" ? "ended" : stream.state];

  const focusLine = useCallback((index: number) => {
    const el = box.current;
    if (!el) return;
    setFollowing(false);
    el.scrollTop = Math.max(0, index * TIMELINE_ROW_HEIGHT - el.clientHeight / 2);
  }, [setFollowing]);
  const search = useTimelineSearch(lines, lineCount, focusLine);
  const currentIndex = search.current >= 0 ? search.matches[search.current] : undefined;
  const toggleExpanded = useCallback((seq: number) => setExpandedSeq((open) => (open === seq ? null : seq)), []);
  const expanded = expandedSeq === null ? undefined : lines.find((event) => event.seq === expandedSeq);

  useLayoutEffect(() => {
    if (following && box.current) box.current.scrollTop = box.current.scrollHeight;
  }, [lineCount, following]);

  // The log changes height when the call ends (and with the window): a followed log stays at its end.
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const observer = new ResizeObserver(() => {
      if (followingRef.current) el.scrollTop = el.scrollHeight;
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  function jumpToLatest() {
    setFollowing(true);
    if (box.current) box.current.scrollTop = box.current.scrollHeight;
  }

  return (
    <section aria-labelledby="timeline-title" className="overflow-hidden rounded-lg border border-zinc-800 bg-zinc-950 shadow-xs">
      <div className="flex min-h-11 flex-wrap items-center gap-3 border-b border-zinc-800 px-4 py-1.5">
        <h2 id="timeline-title" className="text-sm font-semibold text-zinc-100">
          stderr
        </h2>
        <span className="text-xs text-zinc-500 tabular-nums" data-testid="timeline-count">
          {lineCount} line{lineCount === 1 ? "" : "s"}
        </span>
        <Badge tone={badge.tone} dot pulse={badge.pulse} className="!bg-transparent !ring-zinc-700" data-testid="timeline-state">
          <span className="text-zinc-300">{badge.label}</span>
        </Badge>
        <div className="ml-auto flex flex-wrap items-center gap-2">
          <TimelineSearchBox search={search} />
          {!following ? (
            <Button size="sm" variant="secondary" onClick={jumpToLatest} className="!h-6">
              Jump to latest
            </Button>
          ) : null}
          <Button size="sm" variant="secondary" onClick={() => downloadTimeline(lines, lineCount)} disabled={lineCount === 0} className="!h-6">
            Download as text
          </Button>
        </div>
      </div>
      <VirtualList
        outerRef={box}
        role="log"
        aria-label="stderr timeline"
        tabIndex={0}
        count={lineCount}
        rowHeight={TIMELINE_ROW_HEIGHT}
        overscan={20}
        rowKey={(index) => lines[index]?.seq ?? index}
        renderRow={(index) => {
          const event = lines[index];
          if (!event) return null;
          const match = search.needle !== "" && hasMatch(search.matches, index);
          return (
            <TimelineRow
              event={event}
              needle={match ? search.needle : ""}
              current={index === currentIndex}
              expanded={event.seq === expandedSeq}
              onToggle={toggleExpanded}
            />
          );
        }}
        onScroll={(event) => {
          // Only the reader scrolling up pauses following; reaching the end resumes it. Scrolls the
          // page makes itself (following, resizes) never move the view up.
          const el = event.currentTarget;
          const atEnd = el.scrollHeight - el.scrollTop - el.clientHeight < FOLLOW_SLACK_PX;
          if (atEnd) setFollowing(true);
          else if (el.scrollTop < lastScrollTop.current - 1) setFollowing(false);
          lastScrollTop.current = el.scrollTop;
        }}
        footer={
          lineCount === 0 ? (
            <p className="px-4 py-2 text-zinc-500 italic">
              {finished
                ? "No stderr output."
                : queued
                  ? "Queued: the call waits for a worker that may take it (see above). Its stderr appears here once it starts."
                  : "Waiting for stderr…"}
            </p>
          ) : null
        }
        className={cx(
          "overflow-y-auto font-mono text-[12.5px] leading-5 focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-blue-500",
          BOX_HEIGHT[finished ? "finished" : queued ? "queued" : "running"],
        )}
      />
      {expanded ? (
        <div className="border-t border-zinc-800 px-4 py-2 font-mono text-[12.5px] leading-5" data-testid="timeline-expanded">
          <div className="mb-1 flex items-center gap-2 text-xs text-zinc-500">
            <span>
              line {expanded.seq}, whole · <time dateTime={expanded.at}>{formatClockTime(expanded.at)}</time>
            </span>
            <button type="button" className="ml-auto text-zinc-400 hover:text-zinc-100" onClick={() => setExpandedSeq(null)}>
              Close
            </button>
          </div>
          <p className="max-h-40 overflow-y-auto break-all whitespace-pre-wrap text-zinc-100">{expanded.line}</p>
        </div>
      ) : lineCount > 0 ? (
        <p className="border-t border-zinc-800 px-4 py-1.5 text-xs text-zinc-500" data-testid="timeline-hint">
          Lines longer than the box end in “…”: click or tap a line to read it whole.
        </p>
      ) : null}
    </section>
  );
}

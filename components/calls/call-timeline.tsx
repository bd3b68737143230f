"use client";

import { memo, useLayoutEffect, useRef, useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { cx } from "@/components/ui/class-names";
import { formatClockTime, formatInstantTitle } from "@/lib/client/format-time";
import type { CallStream, CallStreamState } from "@/lib/client/use-call-stream";
import { isTerminalStatus, type CallEvent, type CallStatus } from "@/lib/types/call";

/** Distance from the bottom (px) under which the timeline counts as followed. */
const FOLLOW_SLACK_PX = 24;

/** One timeline line: seq, local time (HH:MM:SS.mmm; zone and UTC instant on hover) and text; system lines stand out. */
const TimelineLine = memo(function TimelineLine({ event }: { event: CallEvent }) {
  const system = event.stream === "system";
  return (
    <div
      className={cx("grid grid-cols-[3.25rem_6.75rem_minmax(0,1fr)] gap-x-3 px-3 hover:bg-white/[0.04]", system && "bg-sky-400/[0.06]")}
      data-seq={event.seq}
      data-stream={event.stream}
    >
      <span className="text-right text-zinc-600 tabular-nums select-none">{event.seq}</span>
      <time dateTime={event.at} title={formatInstantTitle(event.at)} className="text-zinc-500 tabular-nums select-none">
        {formatClockTime(event.at)}
      </time>
      <span className={cx("break-all whitespace-pre-wrap", system ? "text-sky-300 italic" : "text-zinc-100")}>
        {system ? <span className="mr-2 text-[10px] font-semibold tracking-wider text-sky-400/80 uppercase not-italic">system</span> : null}
        {event.line}
      </span>
    </div>
  );
});

/** A chunk of lines; full chunks never change, so memo keeps long timelines cheap to update. */
const TimelineChunk = memo(function TimelineChunk({ lines }: { lines: readonly CallEvent[] }) {
  return (
    <>
      {lines.map((event) => (
        <TimelineLine key={event.seq} event={event} />
      ))}
    </>
  );
});

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

/**
 * The call's stderr timeline as a terminal-like log, full width with its own scroll. Lines are
 * appended as they arrive; while the reader is at the bottom the view follows new lines, scrolling up
 * pauses that and offers "Jump to latest". The badge says how the stream is doing (live,
 * reconnecting, polling, complete) — or `queued` while the call waits for a slot and has no line yet.
 */
export function CallTimeline({ stream, status }: { stream: CallStream; status: CallStatus }) {
  const box = useRef<HTMLDivElement>(null);
  const [following, setFollowing] = useState(true);
  const finished = isTerminalStatus(status);
  // Queued until its first line: the "started" system line arrives before the refetched status does.
  const queued = status === "queued" && stream.lineCount === 0 && (stream.state === "connecting" || stream.state === "live");
  // A call that ended while the stream was down is complete all the same (its timeline came by polling).
  const badge = queued ? QUEUED_BADGE : STATE_BADGE[finished && stream.state !== "live" ? "ended" : stream.state];

  useLayoutEffect(() => {
    if (following && box.current) box.current.scrollTop = box.current.scrollHeight;
  }, [stream.lineCount, following]);

  function jumpToLatest() {
    setFollowing(true);
    if (box.current) box.current.scrollTop = box.current.scrollHeight;
  }

  return (
    <section aria-labelledby="timeline-title" className="overflow-hidden rounded-lg border border-zinc-800 bg-zinc-950 shadow-xs">
      <div className="flex h-11 items-center gap-3 border-b border-zinc-800 px-4">
        <h2 id="timeline-title" className="text-sm font-semibold text-zinc-100">
          stderr
        </h2>
        <span className="text-xs text-zinc-500 tabular-nums" data-testid="timeline-count">
          {stream.lineCount} line{stream.lineCount === 1 ? "" : "s"}
        </span>
        <Badge tone={badge.tone} dot pulse={badge.pulse} className="ml-auto !bg-transparent !ring-zinc-700" data-testid="timeline-state">
          <span className="text-zinc-300">{badge.label}</span>
        </Badge>
        {!following ? (
          <Button size="sm" variant="secondary" onClick={jumpToLatest} className="!h-6">
            Jump to latest
          </Button>
        ) : null}
      </div>
      <div
        ref={box}
        role="log"
        aria-label="stderr timeline"
        tabIndex={0}
        onScroll={(event) => {
          const el = event.currentTarget;
          setFollowing(el.scrollHeight - el.scrollTop - el.clientHeight < FOLLOW_SLACK_PX);
        }}
        className={cx(
          "overflow-y-auto py-2 font-mono text-[12.5px] leading-5 focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-blue-500",
          BOX_HEIGHT[finished ? "finished" : queued ? "queued" : "running"],
        )}
      >
        {stream.chunks.map((lines, index) => (
          <TimelineChunk key={index} lines={lines} />
        ))}
        {stream.lineCount === 0 ? (
          <p className="px-4 py-2 text-zinc-500 italic">
            {finished
              ? "No stderr output."
              : queued
                ? "Queued: the call waits for a free slot. Its stderr appears here once it starts."
                : "Waiting for stderr…"}
          </p>
        ) : null}
      </div>
    </section>
  );
}

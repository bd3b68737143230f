import { cx } from "@/components/ui/class-names";
import type { CallEvent, CallStatus } from "@/lib/types/call";

/** How many of the last stderr lines a failure shows. */
export const FAILURE_STDERR_LINES = 3;

/** End states whose closing system line says what stopped the call (the timeout, who cancelled, the lost console). */
const SYSTEM_LINE_STATUSES: readonly CallStatus[] = ["timed_out", "cancelled", "interrupted"];

/**
 * The part of a timeline that explains why a call ended badly: its last `stderrLines` stderr lines,
 * plus — for timed_out, cancelled and interrupted — its last system line unless that only repeats
 * `error`. In timeline order. Walks `chunks` from the end, so a long timeline costs little.
 */
export function failureExcerpt(
  chunks: readonly (readonly CallEvent[])[],
  status: CallStatus,
  error: string | null,
  stderrLines = FAILURE_STDERR_LINES,
): CallEvent[] {
  const stderr: CallEvent[] = [];
  let system: CallEvent | null = null;
  const wantSystem = SYSTEM_LINE_STATUSES.includes(status);
  for (let c = chunks.length - 1; c >= 0; c--) {
    const chunk = chunks[c] ?? [];
    for (let i = chunk.length - 1; i >= 0; i--) {
      const event = chunk[i];
      if (!event) continue;
      if (event.stream === "stderr" && stderr.length < stderrLines) stderr.push(event);
      else if (event.stream === "system" && wantSystem && system === null) system = event;
      if (stderr.length >= stderrLines && (!wantSystem || system !== null)) break;
    }
    if (stderr.length >= stderrLines && (!wantSystem || system !== null)) break;
  }
  const picked = system && system.line.trim() !== (error ?? "").trim() ? [...stderr, system] : stderr;
  return picked.sort((a, b) => a.seq - b.seq);
}

/**
 * The lines failureExcerpt picked, as a small log inside a failure box: seq, then the text; system
 * lines are marked. For a failed call with no stderr at all, says so (that is a finding too).
 */
export function FailureExcerpt({ events, status }: { events: readonly CallEvent[]; status: CallStatus }) {
  if (events.length === 0) {
    return status === "failed" ? <p className="mt-1.5 text-xs opacity-80">The skill wrote nothing to stderr.</p> : null;
  }
  const onlyStderr = events.every((event) => event.stream === "stderr");
  return (
    <div className="mt-2">
      <p className="text-[11px] font-medium tracking-wide uppercase opacity-75">{onlyStderr ? `Last stderr line${events.length === 1 ? "" : "s"}` : "End of the timeline"}</p>
      <ol className="mt-1 overflow-x-auto rounded border border-current/15 bg-white/70 py-1 font-mono text-xs leading-5 text-zinc-800" data-testid="failure-excerpt" aria-label="Last timeline lines">
        {events.map((event) => (
          <li key={event.seq} className="flex gap-3 px-2" data-stream={event.stream}>
            <span className="w-8 shrink-0 text-right text-zinc-400 tabular-nums select-none">{event.seq}</span>
            <span className={cx("break-all whitespace-pre-wrap", event.stream === "system" && "text-sky-800 italic")}>
              {event.stream === "system" ? <span className="mr-2 text-[10px] font-semibold tracking-wider text-sky-700 uppercase not-italic">system</span> : null}
              {event.line}
            </span>
          </li>
        ))}
      </ol>
    </div>
  );
}

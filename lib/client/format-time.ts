/**
 * Formats a duration in milliseconds for people: `532 ms` under a second, `2.41 s` under a minute,
 * `3m 05s` above. Null (not started / not ended) gives an em dash.
 */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return "—";
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(2)} s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.floor((ms % 60_000) / 1000);
  return `${minutes}m ${String(seconds).padStart(2, "0")}s`;
}

const pad = (value: number, width = 2) => String(value).padStart(width, "0");

/** The local wall-clock time of an ISO-8601 timestamp as `HH:MM:SS.mmm` (the timeline's format). */
export function formatClockTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "--:--:--.---";
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`;
}

/** An ISO-8601 timestamp as local `YYYY-MM-DD HH:MM:SS`; null gives an em dash. */
export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return "—";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "—";
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/**
 * A UTC offset in minutes east of Greenwich (the negation of Date#getTimezoneOffset) as a zone label:
 * `UTC` for 0, else `UTC+2`, `UTC-5`, `UTC+5:30`.
 */
export function formatUtcOffset(offsetMinutes: number): string {
  if (offsetMinutes === 0) return "UTC";
  const sign = offsetMinutes > 0 ? "+" : "-";
  const hours = Math.floor(Math.abs(offsetMinutes) / 60);
  const minutes = Math.abs(offsetMinutes) % 60;
  return `UTC${sign}${hours}${minutes === 0 ? "" : `:${pad(minutes)}`}`;
}

/** The browser's zone at the instant `iso` (offsets change with daylight saving time) as formatUtcOffset gives it. */
export function formatTimeZone(iso: string): string {
  const date = new Date(iso);
  return formatUtcOffset(Number.isNaN(date.getTime()) ? 0 : -date.getTimezoneOffset());
}

/**
 * The full description of an instant for a tooltip: local time with its zone, then the exact UTC
 * instant, e.g. `2026-11-29 23:21:49 UTC+1 · 2026-11-29T22:21:49.123Z`. Empty for a missing or bad value.
 */
export function formatInstantTitle(iso: string | null | undefined): string {
  if (!iso) return "";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  return `${formatDateTime(iso)} ${formatTimeZone(iso)} · ${date.toISOString()}`;
}

/** How long ago `iso` was relative to `now` (ms epoch), coarse: `12s ago`, `5m ago`, `3h ago`, `2d ago`. */
export function formatRelative(iso: string | null | undefined, now: number = Date.now()): string {
  if (!iso) return "—";
  const then = new Date(iso).getTime();
  if (Number.isNaN(then)) return "—";
  const seconds = Math.max(0, Math.round((now - then) / 1000));
  if (seconds < 60) return `${seconds}s ago`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h ago`;
  return `${Math.floor(seconds / 86_400)}d ago`;
}

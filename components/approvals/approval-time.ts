/**
 * How long until `expiresAt` (ISO-8601) from `now` (ms epoch), for people: `45s left`, `12m 05s left`,
 * `1h 02m left`; `expired` once it has passed, `—` for a bad value. Rounded down to the second.
 */
export function formatTimeLeft(expiresAt: string, now: number): string {
  const end = new Date(expiresAt).getTime();
  if (Number.isNaN(end)) return "—";
  const seconds = Math.floor((end - now) / 1000);
  if (seconds <= 0) return "expired";
  if (seconds < 60) return `${seconds}s left`;
  const pad = (value: number) => String(value).padStart(2, "0");
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ${pad(seconds % 60)}s left`;
  return `${Math.floor(seconds / 3600)}h ${pad(Math.floor((seconds % 3600) / 60))}m left`;
}

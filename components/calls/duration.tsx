import { EmptyValue } from "@/components/ui/empty-value";
import { formatDuration } from "@/lib/client/format-time";

/** A call's duration in monospace (`532 ms`, `2.41 s`), or the empty mark labelled `emptyLabel` when it has none. */
export function Duration({ ms, emptyLabel = "no duration" }: { ms: number | null; emptyLabel?: string }) {
  if (ms === null) return <EmptyValue label={emptyLabel} />;
  return <span className="font-mono tabular-nums">{formatDuration(ms)}</span>;
}

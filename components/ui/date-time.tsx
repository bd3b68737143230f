import { formatDateTime, formatInstantTitle, formatTimeZone } from "@/lib/client/format-time";
import { cx } from "./class-names";
import { EmptyValue } from "./empty-value";

/**
 * An instant as local `YYYY-MM-DD HH:MM:SS` in a `<time>` element whose tooltip gives the zone and the
 * exact UTC instant; `zone` also prints the zone (`UTC`, `UTC+1`) after it. A missing value is an
 * EmptyValue labelled `emptyLabel`.
 */
export function DateTime({ iso, zone = false, emptyLabel, className }: { iso: string | null | undefined; zone?: boolean; emptyLabel?: string; className?: string }) {
  if (!iso || formatInstantTitle(iso) === "") return <EmptyValue label={emptyLabel} />;
  return (
    <time dateTime={iso} title={formatInstantTitle(iso)} className={cx("tabular-nums", className)}>
      {formatDateTime(iso)}
      {zone ? <span className="ml-1 text-xs text-zinc-500">{formatTimeZone(iso)}</span> : null}
    </time>
  );
}

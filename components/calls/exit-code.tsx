import { cx } from "@/components/ui/class-names";
import { EmptyValue } from "@/components/ui/empty-value";

/** An exit code in monospace: green 0, red non-zero, the console's empty mark when there is none. */
export function ExitCode({ code }: { code: number | null }) {
  if (code === null) return <EmptyValue label="no exit code" />;
  return <span className={cx("font-mono font-semibold tabular-nums", code === 0 ? "text-emerald-700" : "text-red-700")}>{code}</span>;
}

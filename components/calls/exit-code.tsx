import { cx } from "@/components/ui/class-names";

/** An exit code in monospace: green 0, red non-zero, an em dash when there is none yet. */
export function ExitCode({ code }: { code: number | null }) {
  if (code === null) return <span className="text-zinc-400">—</span>;
  return <span className={cx("font-mono font-semibold tabular-nums", code === 0 ? "text-emerald-700" : "text-red-700")}>{code}</span>;
}

import Link from "next/link";
import { cx } from "@/components/ui/class-names";
import type { Call } from "@/lib/types/call";

/** The skill page URL that opens `call`'s skill with the form filled with that call's args. */
export function rerunHref(call: Pick<Call, "id" | "skill">): string {
  return `/skills/${encodeURIComponent(call.skill)}?from=${encodeURIComponent(call.id)}`;
}

/**
 * A link to the skill page pre-filled with `call`'s exact args (issue 3, point 4): "Run again with these
 * args" styled as a secondary button, or a small "Run again" text link when `compact` (table rows,
 * raised above the row's stretched link).
 */
export function RerunLink({ call, compact = false }: { call: Pick<Call, "id" | "skill">; compact?: boolean }) {
  return (
    <Link
      href={rerunHref(call)}
      title={`Open ${call.skill} with the args of call ${call.id}`}
      aria-label={compact ? `Run ${call.skill} again with the args of call ${call.id}` : undefined}
      className={cx(
        compact
          ? "relative z-10 text-xs font-medium whitespace-nowrap text-blue-700 hover:underline"
          : "inline-flex h-8 items-center rounded-md border border-zinc-300 bg-white px-3 text-sm font-medium whitespace-nowrap text-zinc-800 shadow-xs hover:bg-zinc-50",
      )}
    >
      {compact ? "Run again" : "Run again with these args"}
    </Link>
  );
}

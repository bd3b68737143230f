"use client";

import { cx } from "@/components/ui/class-names";
import { formatInstantTitle, formatRelative } from "@/lib/client/format-time";
import type { Approval } from "@/lib/types/approval";
import { formatTimeLeft } from "./approval-time";
import { useNow } from "./use-now";

/**
 * An approval's age ("requested 3m ago") and, while pending, the time left before it expires, ticking
 * every second; under five minutes left it turns amber. Tooltips give the exact instants.
 */
export function ApprovalClock({ approval, className }: { approval: Approval; className?: string }) {
  const now = useNow();
  const left = new Date(approval.expiresAt).getTime() - now;
  return (
    <span className={cx("inline-flex flex-wrap items-center gap-x-2 text-xs text-zinc-500 tabular-nums", className)}>
      <span title={formatInstantTitle(approval.createdAt)}>requested {formatRelative(approval.createdAt, now)}</span>
      {approval.status === "pending" ? (
        <>
          <span aria-hidden="true">·</span>
          <span
            title={`expires ${formatInstantTitle(approval.expiresAt)}`}
            className={cx(left < 5 * 60_000 && "font-medium text-amber-700")}
            data-testid="approval-time-left"
          >
            {formatTimeLeft(approval.expiresAt, now)}
          </span>
        </>
      ) : null}
    </span>
  );
}

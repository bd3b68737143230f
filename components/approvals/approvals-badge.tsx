"use client";

import { usePendingApprovalCount } from "@/lib/client/approvals";

/**
 * The navigation's count of pending approvals (issue 4 point 6): a small pill kept live by the
 * approvals feed (useApprovalFeed, mounted by TopNav: a request filed or signed on any replica shows at
 * once), re-read every 5 s while the feed is down. Renders nothing while the count is unknown or zero.
 */
export function ApprovalsBadge() {
  const count = usePendingApprovalCount();
  if (!count) return null;
  return (
    <span
      className="ml-1.5 inline-flex min-w-4 items-center justify-center rounded-full bg-amber-400 px-1 text-[10px] leading-4 font-semibold text-zinc-950 tabular-nums"
      aria-label={`${count} pending`}
      data-testid="approvals-badge"
    >
      {count}
    </span>
  );
}

"use client";

import Link from "next/link";
import { Card, CardHeader } from "@/components/ui/card";
import { LoadFailed } from "@/components/ui/load-failed";
import { SkeletonRows } from "@/components/ui/skeleton";
import { formatInstantTitle, formatRelative } from "@/lib/client/format-time";
import { useCalls } from "@/lib/client/use-calls";
import { CallStatusBadge } from "./call-status-badge";
import { Duration } from "./duration";

/**
 * The last ten calls of skill `skill` (newest first), each linking to its call page, plus a link to
 * the full history. The empty state invites a run only when `canRun`.
 */
export function RecentCalls({ skill, canRun = true }: { skill: string; canRun?: boolean }) {
  const calls = useCalls({ skill, limit: 10 });
  return (
    <Card aria-labelledby="recent-calls-title">
      <CardHeader
        title="Recent calls"
        titleId="recent-calls-title"
        actions={
          <Link href={`/calls?skill=${encodeURIComponent(skill)}`} className="text-xs font-medium text-blue-700 hover:underline">
            View all
          </Link>
        }
      />
      {calls.isPending ? (
        <SkeletonRows rows={3} className="p-4" />
      ) : calls.isError ? (
        <div className="p-3">
          <LoadFailed title="Could not load the calls" error={calls.error} onRetry={() => void calls.refetch()} />
        </div>
      ) : calls.data.length === 0 ? (
        <p className="px-4 py-6 text-center text-sm text-zinc-500">{canRun ? "No calls yet. Run it to see one here." : "No calls yet."}</p>
      ) : (
        <ul className="divide-y divide-zinc-100">
          {calls.data.map((call) => (
            <li key={call.id} className="relative flex items-center gap-3 px-4 py-2 text-sm hover:bg-zinc-50">
              <CallStatusBadge status={call.status} />
              <Link
                href={`/calls/${encodeURIComponent(call.id)}`}
                className="min-w-0 flex-1 truncate font-mono text-xs text-zinc-700 after:absolute after:inset-0 hover:text-blue-700"
                title={call.id}
              >
                {call.id.slice(0, 12)}
              </Link>
              <span className="text-xs text-zinc-500">
                <Duration ms={call.durationMs} emptyLabel={call.startedAt ? "still running" : "never ran"} />
              </span>
              <span className="w-14 text-right text-xs text-zinc-500 tabular-nums" title={formatInstantTitle(call.startedAt ?? call.createdAt)}>
                {formatRelative(call.startedAt ?? call.createdAt)}
              </span>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}

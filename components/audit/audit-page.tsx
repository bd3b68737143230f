"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useMemo } from "react";
import { PageHeader } from "@/components/layout/page-header";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { SkeletonRows } from "@/components/ui/skeleton";
import { VirtualList } from "@/components/ui/virtual-list";
import { useAuditTrail } from "@/lib/client/use-audit";
import { AuditFilter } from "./audit-filter";
import { AUDIT_GRID, AUDIT_ROW_HEIGHT, AuditRow } from "./audit-row";

/** Placeholder of the audit table while it loads. */
export function AuditSkeleton() {
  return (
    <Card>
      <SkeletonRows rows={10} className="p-4" />
    </Card>
  );
}

const COLUMNS = ["Time", "Action", "Actor", "Skill", "Call", "Digest", "Details"];

/**
 * The Audit page body (issue 4 point 5): the append-only audit trail, newest first, loaded in pages
 * ("Load older" asks for the entries before the oldest one held) and drawn as a windowed list, so
 * thousands of entries stay smooth. `?callId=` narrows it to one call's entries. A failed "Load older"
 * keeps the entries held and says so under them.
 */
export function AuditPage() {
  const router = useRouter();
  const pathname = usePathname();
  const searchParams = useSearchParams();
  const callId = searchParams.get("callId")?.trim() ?? "";
  const trail = useAuditTrail(callId ? { callId } : {});
  const entries = useMemo(() => trail.data?.pages.flat() ?? [], [trail.data]);

  function setCallId(next: string) {
    router.replace(next ? `${pathname}?${new URLSearchParams({ callId: next }).toString()}` : pathname, { scroll: false });
  }

  return (
    <>
      <PageHeader
        title="Audit"
        description="Who did what, when, and on which digest: sign-ins, requests, confirmations, signatures, denials, expiries and runs. Entries are never changed or removed."
      />
      <div className="mb-4">
        <AuditFilter value={callId} onChange={setCallId} />
      </div>
      {trail.isPending ? (
        <AuditSkeleton />
      ) : trail.data === undefined ? (
        <Alert
          tone="danger"
          title="Could not load the audit trail"
          actions={
            <Button size="sm" onClick={() => void trail.refetch()}>
              Retry
            </Button>
          }
        >
          {trail.error?.message}
        </Alert>
      ) : entries.length === 0 ? (
        callId ? (
          <EmptyState
            title="No entries for this call"
            actions={
              <Button size="sm" onClick={() => setCallId("")}>
                Show all entries
              </Button>
            }
          />
        ) : (
          <EmptyState title="The audit trail is empty">Sign-ins, calls, confirmations and signatures are recorded here as they happen.</EmptyState>
        )
      ) : (
        <Card className="overflow-hidden">
          {/* Wider than a phone: a shadow at the edge it scrolls towards says there is more (globals.css scroll-shadow-x). */}
          <div className="scroll-shadow-x relative overflow-x-auto">
            <div className="min-w-[72rem]">
              <div role="row" aria-hidden="true" className={`${AUDIT_GRID} border-b border-zinc-200 bg-zinc-50 px-4 py-2 text-[11px] font-medium tracking-wide text-zinc-500 uppercase`}>
                {COLUMNS.map((column) => (
                  <span key={column}>{column}</span>
                ))}
              </div>
              <VirtualList
                role="table"
                aria-label="Audit entries, newest first"
                aria-rowcount={entries.length}
                scroller="window"
                count={entries.length}
                rowHeight={AUDIT_ROW_HEIGHT}
                rowKey={(index) => entries[index]?.id ?? index}
                renderRow={(index) => {
                  const entry = entries[index];
                  return entry ? <AuditRow entry={entry} onFilterCall={setCallId} /> : null;
                }}
              />
            </div>
          </div>
          <div className="flex items-center justify-between gap-3 border-t border-zinc-200 px-4 py-2 text-xs text-zinc-500">
            <span aria-live="polite">
              {entries.length.toLocaleString()} {entries.length === 1 ? "entry" : "entries"} shown
              {trail.hasNextPage ? "" : " — the start of the trail"}
            </span>
            {trail.hasNextPage ? (
              <Button size="sm" pending={trail.isFetchingNextPage} onClick={() => void trail.fetchNextPage()}>
                Load older
              </Button>
            ) : null}
          </div>
          {trail.isFetchNextPageError ? (
            <Alert tone="danger" title="Could not load older entries" className="m-3">
              {trail.error?.message}
            </Alert>
          ) : null}
        </Card>
      )}
    </>
  );
}

"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback, useMemo, useState } from "react";
import { PageHeader } from "@/components/layout/page-header";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { LoadFailed } from "@/components/ui/load-failed";
import { SkeletonRows } from "@/components/ui/skeleton";
import { MeasuredList } from "@/components/ui/measured-list";
import { auditExportUrl, useAuditTrail } from "@/lib/client/use-audit";
import { AUDIT_FILTER_NAMES, type AuditExportFormat, type AuditFilters } from "@/lib/types/audit";
import { AuditFilter } from "./audit-filter";
import { AUDIT_COLUMNS, AUDIT_GRID, AUDIT_ROW_HEIGHT, AuditRow } from "./audit-row";

/** Placeholder of the audit table while it loads. */
export function AuditSkeleton() {
  return (
    <Card>
      <SkeletonRows rows={10} className="p-4" />
    </Card>
  );
}

/** The applied filters of the page, read from its URL (the same names as the API's query parameters). */
function filtersOf(searchParams: URLSearchParams): AuditFilters {
  const filters: AuditFilters = {};
  for (const name of AUDIT_FILTER_NAMES) {
    const value = searchParams.get(name)?.trim();
    if (value) filters[name] = value;
  }
  return filters;
}

/** A download link of the filtered trail, styled as a small secondary button. */
function ExportLink({ filters, format, children }: { filters: AuditFilters; format: AuditExportFormat; children: string }) {
  return (
    <a
      href={auditExportUrl(filters, format)}
      download
      className="inline-flex h-7 items-center rounded-md border border-zinc-300 bg-white px-2.5 text-xs font-medium whitespace-nowrap text-zinc-800 shadow-xs hover:border-zinc-400 hover:bg-zinc-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600"
    >
      {children}
    </a>
  );
}

/**
 * The Audit page body (issue 4 point 5, issue 14 point 6): the append-only audit trail, newest first,
 * loaded in pages ("Load older" asks for the entries before the oldest one held) and drawn as a
 * windowed list of measured rows, so 100,000 entries stay smooth while any of them is expanded in
 * place. The filters (person, skill, action, call) live in the page's URL under the API's names, so a
 * filtered view can be shared, and the same filters export the whole trail as CSV or JSON lines. A
 * failed "Load older" keeps the entries held and says so under them.
 */
export function AuditPage() {
  const router = useRouter();
  const pathname = usePathname();
  const searchParams = useSearchParams();
  const queryText = searchParams.toString();
  // Keyed on the query's text: a new URLSearchParams object every render must not be a new filter.
  const filters = useMemo(() => filtersOf(new URLSearchParams(queryText)), [queryText]);
  const trail = useAuditTrail(filters);
  const entries = useMemo(() => trail.data?.pages.flat() ?? [], [trail.data]);
  const [expanded, setExpanded] = useState<ReadonlySet<number>>(() => new Set());
  const filtered = AUDIT_FILTER_NAMES.some((name) => filters[name] !== undefined);

  const setFilters = useCallback(
    (next: AuditFilters) => {
      const query = new URLSearchParams();
      for (const name of AUDIT_FILTER_NAMES) if (next[name]) query.set(name, next[name]);
      const text = query.toString();
      router.replace(text ? `${pathname}?${text}` : pathname, { scroll: false });
    },
    [router, pathname],
  );
  const narrow = useCallback((name: keyof AuditFilters, value: string) => setFilters({ ...filters, [name]: value }), [filters, setFilters]);
  const toggle = useCallback((id: number) => {
    setExpanded((current) => {
      const next = new Set(current);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  }, []);
  const rowKey = useCallback((index: number) => entries[index]?.id ?? -index, [entries]);

  return (
    <>
      <PageHeader
        title="Audit"
        description="Who did what, when, and on which digest: sign-ins, requests, confirmations, signatures, denials, expiries and runs. Entries are never changed or removed."
        actions={
          <div role="group" aria-label={filtered ? "Export the filtered trail" : "Export the whole trail"} className="flex items-center gap-2">
            <span className="text-xs text-zinc-500">{filtered ? "Export filtered:" : "Export:"}</span>
            <ExportLink filters={filters} format="csv">
              CSV
            </ExportLink>
            <ExportLink filters={filters} format="jsonl">
              JSON lines
            </ExportLink>
          </div>
        }
      />
      <div className="mb-4">
        <AuditFilter value={filters} onChange={setFilters} />
      </div>
      {trail.isPending ? (
        <AuditSkeleton />
      ) : trail.data === undefined ? (
        <LoadFailed title="Could not load the audit trail" error={trail.error} onRetry={() => void trail.refetch()} />
      ) : entries.length === 0 ? (
        filtered ? (
          <EmptyState
            title={Object.keys(filters).length === 1 && filters.callId ? "No entries for this call" : "No entries match these filters"}
            actions={
              <Button size="sm" onClick={() => setFilters({})}>
                Show all entries
              </Button>
            }
          />
        ) : (
          <EmptyState title="The audit trail is empty">Sign-ins, calls, confirmations and signatures are recorded here as they happen.</EmptyState>
        )
      ) : (
        <Card className="overflow-hidden">
          <div role="row" aria-hidden="true" className={`hidden ${AUDIT_GRID} border-b border-zinc-200 bg-zinc-50 px-4 py-2 text-[11px] font-medium tracking-wide text-zinc-500 uppercase`}>
            {AUDIT_COLUMNS.map((column) => (
              <span key={column}>{column}</span>
            ))}
          </div>
          <MeasuredList
            role="table"
            aria-label="Audit entries, newest first"
            aria-rowcount={entries.length}
            count={entries.length}
            estimateHeight={AUDIT_ROW_HEIGHT}
            rowKey={rowKey}
            renderRow={(index) => {
              const entry = entries[index];
              return entry ? <AuditRow entry={entry} expanded={expanded.has(entry.id)} onToggle={toggle} onFilter={narrow} /> : null;
            }}
          />
          <div className="flex flex-wrap items-center justify-between gap-3 border-t border-zinc-200 px-4 py-2 text-xs text-zinc-500">
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
            <LoadFailed title="Could not load older entries" error={trail.error} onRetry={() => void trail.fetchNextPage()} retrying={trail.isFetchingNextPage} className="m-3" />
          ) : null}
        </Card>
      )}
    </>
  );
}

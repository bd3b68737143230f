"use client";

import Link from "next/link";
import type { ReactNode } from "react";
import { Badge, type BadgeTone } from "@/components/ui/badge";
import { cx } from "@/components/ui/class-names";
import { CopyButton } from "@/components/ui/copy-button";
import { DateTime } from "@/components/ui/date-time";
import { EmptyValue } from "@/components/ui/empty-value";
import type { AuditEntry, AuditFilters } from "@/lib/types/audit";

/** Height of a collapsed audit row on a wide screen, in px: the list's first guess for a row it has not measured. */
export const AUDIT_ROW_HEIGHT = 40;

/**
 * The column template shared by the header row and every entry row on a wide screen (`xl`, 1280 px
 * and up); below it, each entry is a block of `label: value` lines.
 */
export const AUDIT_GRID = "xl:grid xl:grid-cols-[9rem_11rem_minmax(0,12rem)_minmax(0,9rem)_6.5rem_9.5rem_minmax(0,1fr)] xl:items-center xl:gap-3";

/** The column names, in order. */
export const AUDIT_COLUMNS = ["Time", "Action", "Actor", "Skill", "Call", "Digest", "Details"] as const;

/** Colour of an action by its outcome: refusals red, approvals' progress violet, runs blue. */
function actionTone(action: string): BadgeTone {
  if (/denied|deny|failed|void|expired|revoked|refused/.test(action)) return "red";
  if (/sign|approv|confirm/.test(action)) return "violet";
  if (/call|run|execut/.test(action)) return "blue";
  return "neutral";
}

/** An ID or digest cut to its first `length` characters for a narrow column. */
function shorten(value: string, length: number): string {
  return value.length > length ? `${value.slice(0, length)}…` : value;
}

/** The id of the element holding entry `id`'s expanded details (the toggle's aria-controls). */
export function auditDetailsId(id: number): string {
  return `audit-details-${id}`;
}

/** One cell: on a narrow screen a `label` line beside its value; on a wide one the value alone, in its column. */
function Cell({ label, children, className }: { label: string; children: ReactNode; className?: string }) {
  return (
    <div role="cell" className={cx("flex min-w-0 items-baseline gap-2 xl:items-center", className)}>
      <span className="w-16 shrink-0 text-xs font-medium text-zinc-500 xl:hidden">{label}</span>
      <div className="flex min-w-0 flex-1 items-center gap-1">{children}</div>
    </div>
  );
}

/** A small icon button that narrows the page to one value of a filter (the funnel of a cell). */
function FilterButton({ label, onClick }: { label: string; onClick: () => void }) {
  return (
    <button
      type="button"
      onClick={onClick}
      title={label}
      aria-label={label}
      className="shrink-0 rounded px-1 text-zinc-400 hover:bg-zinc-100 hover:text-zinc-800 focus-visible:outline-2 focus-visible:outline-blue-600"
    >
      <svg aria-hidden="true" viewBox="0 0 16 16" className="size-3" fill="none" stroke="currentColor" strokeWidth="1.5">
        <path d="M2 3h12l-4.5 5.5V13l-3-1.5v-3z" strokeLinejoin="round" />
      </svg>
    </button>
  );
}

/** The props of AuditRow. */
export interface AuditRowProps {
  entry: AuditEntry;
  /** Whether the entry's details are shown in full below it. */
  expanded: boolean;
  onToggle: (id: number) => void;
  /** Narrows the page to one value of a filter (a cell's funnel button). */
  onFilter: (filter: keyof AuditFilters, value: string) => void;
}

/**
 * One audit entry as a row of the windowed audit table (issue 14 point 6): time, action, actor, skill,
 * a link to the call, the digest shortened, and the details as one line of JSON with a Show/Hide button
 * (aria-expanded) that opens, in place below the row, the details in full, pretty, with the full call,
 * approval and digest — nothing is readable only on hover. Action, actor, skill and call each have a
 * funnel button that narrows the page to that value. Below 1280 px the row is a block of
 * `label: value` lines, wrapped rather than cut, so a phone reads it without scrolling sideways.
 */
export function AuditRow({ entry, expanded, onToggle, onFilter }: AuditRowProps) {
  const hasDetails = Object.keys(entry.details).length > 0;
  const detailsId = auditDetailsId(entry.id);
  return (
    <div role="row" className={cx("border-b border-zinc-100 px-4 text-sm", expanded ? "bg-zinc-50" : "hover:bg-zinc-50")} data-testid="audit-row" data-entry-id={entry.id}>
      <div className={cx("grid gap-x-6 gap-y-1 py-3 sm:grid-cols-2 xl:h-10 xl:py-0", AUDIT_GRID)}>
        <Cell label="Time" className="text-zinc-700">
          <DateTime iso={entry.at} className="truncate" />
        </Cell>
        <Cell label="Action">
          <Badge tone={actionTone(entry.action)} className="max-w-full truncate font-mono">
            {entry.action}
          </Badge>
          <FilterButton label={`Show only the ${entry.action} entries`} onClick={() => onFilter("action", entry.action)} />
        </Cell>
        <Cell label="Actor" className="text-zinc-800">
          <span className="break-all xl:truncate xl:break-normal">{entry.actor}</span>
          <FilterButton label={`Show only the entries of ${entry.actor}`} onClick={() => onFilter("actor", entry.actor)} />
        </Cell>
        <Cell label="Skill" className="font-mono text-xs">
          {entry.skill ? (
            <>
              <Link href={`/skills/${encodeURIComponent(entry.skill)}`} className="break-all text-zinc-800 hover:underline xl:truncate xl:break-normal">
                {entry.skill}
              </Link>
              <FilterButton label={`Show only the entries of skill ${entry.skill}`} onClick={() => onFilter("skill", entry.skill!)} />
            </>
          ) : (
            <EmptyValue label="no skill" />
          )}
        </Cell>
        <Cell label="Call" className="font-mono text-xs">
          {entry.callId ? (
            <>
              <Link href={`/calls/${encodeURIComponent(entry.callId)}`} aria-label={`Open call ${entry.callId}`} className="truncate text-blue-700 hover:underline">
                {shorten(entry.callId, 8)}
              </Link>
              <FilterButton label={`Show only the entries of call ${entry.callId}`} onClick={() => onFilter("callId", entry.callId!)} />
            </>
          ) : (
            <EmptyValue label="no call" />
          )}
        </Cell>
        <Cell label="Digest">
          {entry.digest ? (
            <>
              <code className="truncate font-mono text-xs text-zinc-700">{shorten(entry.digest.replace(/^sha256:/, ""), 10)}</code>
              <CopyButton size="sm" variant="ghost" label="Copy" className="h-6 px-1.5" aria-label={`Copy digest ${entry.digest}`} getText={() => entry.digest ?? ""} />
            </>
          ) : (
            <EmptyValue label="no digest" />
          )}
        </Cell>
        <Cell label="Details" className="sm:col-span-2 xl:col-span-1">
          <span className="min-w-0 flex-1 truncate font-mono text-xs text-zinc-600">{hasDetails ? JSON.stringify(entry.details) : <EmptyValue label="no details" />}</span>
          <button
            type="button"
            aria-expanded={expanded}
            aria-controls={detailsId}
            onClick={() => onToggle(entry.id)}
            className="inline-flex shrink-0 items-center gap-1 rounded px-1.5 py-0.5 text-xs font-medium text-blue-700 hover:bg-blue-50 focus-visible:outline-2 focus-visible:outline-blue-600"
          >
            <svg aria-hidden="true" viewBox="0 0 16 16" className={cx("size-3 transition-transform", expanded && "rotate-90")} fill="none" stroke="currentColor" strokeWidth="1.75">
              <path d="M6 3.5 10.5 8 6 12.5" strokeLinecap="round" strokeLinejoin="round" />
            </svg>
            {expanded ? "Hide" : "Show"}
            <span className="sr-only"> details of entry {entry.id}</span>
          </button>
        </Cell>
      </div>
      {expanded ? <AuditEntryDetails entry={entry} id={detailsId} /> : null}
    </div>
  );
}

/** The expanded part of an entry: its ids and digest in full, then its details as indented JSON, wrapped to the row's width. */
function AuditEntryDetails({ entry, id }: { entry: AuditEntry; id: string }) {
  const facts: Array<[string, string | null]> = [
    ["Entry", String(entry.id)],
    ["Call", entry.callId],
    ["Approval", entry.approvalId],
    ["Digest", entry.digest],
  ];
  return (
    <div role="cell" id={id} aria-label={`Details of entry ${entry.id}`} className="pb-3" data-testid="audit-details">
      <dl className="mb-2 grid grid-cols-[5rem_minmax(0,1fr)] gap-x-3 gap-y-0.5 text-xs">
        {facts.map(([label, value]) => (
          <div key={label} className="contents">
            <dt className="text-zinc-500">{label}</dt>
            <dd className="font-mono break-all text-zinc-800">{value ?? <EmptyValue label={`no ${label.toLowerCase()}`} />}</dd>
          </div>
        ))}
      </dl>
      <pre className="max-h-96 overflow-auto rounded-md border border-zinc-200 bg-white p-3 font-mono text-xs leading-5 break-words whitespace-pre-wrap text-zinc-800">
        {Object.keys(entry.details).length > 0 ? JSON.stringify(entry.details, null, 2) : "No details recorded."}
      </pre>
    </div>
  );
}

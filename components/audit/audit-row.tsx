"use client";

import Link from "next/link";
import { Badge, type BadgeTone } from "@/components/ui/badge";
import { CopyButton } from "@/components/ui/copy-button";
import { DateTime } from "@/components/ui/date-time";
import { EmptyValue } from "@/components/ui/empty-value";
import type { AuditEntry } from "@/lib/types/audit";

/** Height of one audit row in px (fixed: the list is windowed). */
export const AUDIT_ROW_HEIGHT = 40;

/** The column template shared by the header row and every entry row. */
export const AUDIT_GRID = "grid grid-cols-[10.5rem_12rem_minmax(0,13rem)_minmax(0,10rem)_6.5rem_9.5rem_minmax(0,1fr)] items-center gap-3";

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

/**
 * One audit entry as a row of the windowed audit table: time, action, actor, skill, a link to the call
 * (and a button that narrows the page to that call), the digest shortened (full value on hover and
 * copy) and the details as one line of JSON (the whole, pretty, on hover).
 */
export function AuditRow({ entry, onFilterCall }: { entry: AuditEntry; onFilterCall: (callId: string) => void }) {
  const hasDetails = Object.keys(entry.details).length > 0;
  return (
    <div role="row" className={`${AUDIT_GRID} h-full border-b border-zinc-100 px-4 text-sm hover:bg-zinc-50`} data-testid="audit-row">
      <span role="cell" className="truncate text-zinc-700">
        <DateTime iso={entry.at} />
      </span>
      <span role="cell" className="truncate">
        <Badge tone={actionTone(entry.action)} className="font-mono">
          {entry.action}
        </Badge>
      </span>
      <span role="cell" className="truncate text-zinc-800" title={entry.actor}>
        {entry.actor}
      </span>
      <span role="cell" className="truncate font-mono text-xs" title={entry.skill ?? undefined}>
        {entry.skill ? (
          <Link href={`/skills/${encodeURIComponent(entry.skill)}`} className="text-zinc-800 hover:underline">
            {entry.skill}
          </Link>
        ) : (
          <EmptyValue label="no skill" />
        )}
      </span>
      <span role="cell" className="flex min-w-0 items-center gap-1 font-mono text-xs">
        {entry.callId ? (
          <>
            <Link href={`/calls/${encodeURIComponent(entry.callId)}`} title={`Open call ${entry.callId}`} className="truncate text-blue-700 hover:underline">
              {shorten(entry.callId, 8)}
            </Link>
            <button
              type="button"
              onClick={() => onFilterCall(entry.callId!)}
              title={`Show only the entries of call ${entry.callId}`}
              aria-label={`Show only the entries of call ${entry.callId}`}
              className="rounded px-1 text-zinc-400 hover:bg-zinc-100 hover:text-zinc-800 focus-visible:outline-2 focus-visible:outline-blue-600"
            >
              <svg aria-hidden="true" viewBox="0 0 16 16" className="size-3" fill="none" stroke="currentColor" strokeWidth="1.5">
                <path d="M2 3h12l-4.5 5.5V13l-3-1.5v-3z" strokeLinejoin="round" />
              </svg>
            </button>
          </>
        ) : (
          <EmptyValue label="no call" />
        )}
      </span>
      <span role="cell" className="flex min-w-0 items-center gap-1">
        {entry.digest ? (
          <>
            <code className="truncate font-mono text-xs text-zinc-700" title={entry.digest}>
              {shorten(entry.digest.replace(/^sha256:/, ""), 10)}
            </code>
            <CopyButton size="sm" variant="ghost" label="Copy" className="h-6 px-1.5" aria-label={`Copy digest ${entry.digest}`} getText={() => entry.digest ?? ""} />
          </>
        ) : (
          <EmptyValue label="no digest" />
        )}
      </span>
      <span role="cell" className="truncate font-mono text-xs text-zinc-600" title={hasDetails ? JSON.stringify(entry.details, null, 2) : undefined}>
        {hasDetails ? JSON.stringify(entry.details) : <EmptyValue label="no details" />}
      </span>
    </div>
  );
}

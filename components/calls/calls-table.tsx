import Link from "next/link";
import { Table, TableBody, TableHead, Td, Th, Tr } from "@/components/ui/table";
import { DateTime } from "@/components/ui/date-time";
import { formatInstantTitle, formatRelative, formatTimeZone } from "@/lib/client/format-time";
import type { Call } from "@/lib/types/call";
import { CallStatusBadge } from "./call-status-badge";
import { Duration } from "./duration";
import { ExitCode } from "./exit-code";
import { RerunLink } from "./rerun-link";

/** How a call that never started came to be, for the Started column. */
function requestedVerb(call: Call): string {
  if (call.status === "queued") return "queued";
  return "requested";
}

/**
 * When a call started, or — for one that never did (queued, waiting for a confirmation or signatures,
 * or denied, expired or cancelled before it ran) — "not started" and how long ago it was requested.
 */
function StartedCell({ call }: { call: Call }) {
  if (call.startedAt) {
    return (
      <>
        <DateTime iso={call.startedAt} />
        <span className="ml-2 text-xs text-zinc-400">{formatRelative(call.startedAt)}</span>
      </>
    );
  }
  return (
    <span title={`${requestedVerb(call)} at ${formatInstantTitle(call.createdAt)}`}>
      <span className="text-zinc-500">not started</span>
      <span className="ml-2 text-xs text-zinc-400">
        {requestedVerb(call)} {formatRelative(call.createdAt)}
      </span>
    </span>
  );
}

/**
 * The calls history as a dense table; each row opens its call page (the skill cell opens the skill,
 * the last cell re-opens the skill with that call's args).
 * Times are local; the Started header names the zone.
 */
export function CallsTable({ calls }: { calls: Call[] }) {
  const zone = calls[0] ? formatTimeZone(calls[0].createdAt) : "";
  return (
    <Table caption="Calls, newest first">
      <TableHead>
        <Th>Status</Th>
        <Th>Skill</Th>
        <Th>Call</Th>
        <Th>
          Started{zone ? <span className="ml-1 font-normal normal-case">({zone})</span> : null}
        </Th>
        <Th className="text-right">Duration</Th>
        <Th className="text-right">Exit</Th>
        <Th>Requested by</Th>
        <Th>
          <span className="sr-only">Actions</span>
        </Th>
      </TableHead>
      <TableBody>
        {calls.map((call) => (
          <Tr key={call.id} className="relative">
            <Td label="Status">
              <CallStatusBadge status={call.status} />
            </Td>
            {/* A skill name is one word of up to 64 characters: it wraps rather than push the later columns out of sight. */}
            <Td label="Skill" className="min-w-40 [overflow-wrap:anywhere]">
              <Link href={`/skills/${encodeURIComponent(call.skill)}`} className="relative z-10 font-mono text-[13px] font-medium text-zinc-900 hover:text-blue-700 hover:underline">
                {call.skill}
              </Link>
            </Td>
            <Td label="Call" className="whitespace-nowrap">
              <Link
                href={`/calls/${encodeURIComponent(call.id)}`}
                className="font-mono text-xs text-blue-700 after:absolute after:inset-0 hover:underline focus-visible:outline-none focus-visible:after:ring-2 focus-visible:after:ring-blue-600"
                title={call.id}
                aria-label={`Call ${call.id} of ${call.skill}`}
              >
                {call.id.slice(0, 12)}
              </Link>
            </Td>
            <Td label="Started" className="whitespace-nowrap text-zinc-600 tabular-nums">
              <StartedCell call={call} />
            </Td>
            <Td label="Duration" className="text-right text-xs">
              <Duration ms={call.durationMs} emptyLabel={call.startedAt ? "still running" : "never ran"} />
            </Td>
            <Td label="Exit" className="text-right">
              <ExitCode code={call.exitCode} />
            </Td>
            <Td label="Requested by" className="text-zinc-600">{call.requestedBy}</Td>
            <Td className="text-right">
              <RerunLink call={call} compact />
            </Td>
          </Tr>
        ))}
      </TableBody>
    </Table>
  );
}

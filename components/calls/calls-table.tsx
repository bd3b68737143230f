import Link from "next/link";
import { Table, Td, Th, Tr } from "@/components/ui/table";
import { formatDateTime, formatDuration, formatRelative } from "@/lib/client/format-time";
import type { Call } from "@/lib/types/call";
import { CallStatusBadge } from "./call-status-badge";
import { ExitCode } from "./exit-code";

/** The calls history as a dense table; each row opens its call page (the skill cell opens the skill). */
export function CallsTable({ calls }: { calls: Call[] }) {
  return (
    <Table caption="Calls, newest first">
      <thead>
        <tr>
          <Th>Status</Th>
          <Th>Skill</Th>
          <Th>Call</Th>
          <Th>Started</Th>
          <Th className="text-right">Duration</Th>
          <Th className="text-right">Exit</Th>
          <Th>Requested by</Th>
        </tr>
      </thead>
      <tbody>
        {calls.map((call) => (
          <Tr key={call.id} className="relative">
            <Td>
              <CallStatusBadge status={call.status} />
            </Td>
            <Td>
              <Link href={`/skills/${encodeURIComponent(call.skill)}`} className="relative z-10 font-mono text-[13px] font-medium text-zinc-900 hover:text-blue-700 hover:underline">
                {call.skill}
              </Link>
            </Td>
            <Td>
              <Link
                href={`/calls/${encodeURIComponent(call.id)}`}
                className="font-mono text-xs text-blue-700 after:absolute after:inset-0 hover:underline focus-visible:outline-none focus-visible:after:ring-2 focus-visible:after:ring-blue-600"
                title={call.id}
                aria-label={`Call ${call.id} of ${call.skill}`}
              >
                {call.id.slice(0, 12)}
              </Link>
            </Td>
            <Td className="whitespace-nowrap text-zinc-600 tabular-nums" title={formatDateTime(call.startedAt ?? call.createdAt)}>
              {formatDateTime(call.startedAt ?? call.createdAt)}
              <span className="ml-2 text-xs text-zinc-400">{formatRelative(call.startedAt ?? call.createdAt)}</span>
            </Td>
            <Td className="text-right font-mono text-xs tabular-nums">{formatDuration(call.durationMs)}</Td>
            <Td className="text-right">
              <ExitCode code={call.exitCode} />
            </Td>
            <Td className="text-zinc-600">{call.requestedBy}</Td>
          </Tr>
        ))}
      </tbody>
    </Table>
  );
}

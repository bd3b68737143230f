"use client";

import Link from "next/link";
import { useEffect, useState } from "react";
import { PageHeader } from "@/components/layout/page-header";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { CodeBlock } from "@/components/ui/code-block";
import { DescriptionList } from "@/components/ui/description-list";
import { EmptyState } from "@/components/ui/empty-state";
import { Skeleton, SkeletonRows } from "@/components/ui/skeleton";
import { isApiError } from "@/lib/client/api-error";
import { formatDateTime, formatDuration } from "@/lib/client/format-time";
import { useCall } from "@/lib/client/use-calls";
import { useCallStream } from "@/lib/client/use-call-stream";
import { isTerminalStatus, type CallWithEvents } from "@/lib/types/call";
import { CallResult } from "./call-result";
import { CallStatusBadge } from "./call-status-badge";
import { CallTimeline } from "./call-timeline";
import { CancelCallButton } from "./cancel-call-button";
import { ElapsedTime } from "./elapsed-time";
import { ExitCode } from "./exit-code";

/** How often the call is refetched while its event stream is down. */
const FALLBACK_POLL_MS = 2000;

/** Placeholder of the call page while the call loads. */
export function CallDetailSkeleton() {
  return (
    <div role="status" aria-label="Loading call">
      <Skeleton className="mb-2 h-3 w-40" />
      <Skeleton className="mb-6 h-6 w-72" />
      <div className="mb-4 rounded-lg border border-zinc-200 bg-white p-4">
        <SkeletonRows rows={2} />
      </div>
      <div className="grid gap-4 lg:grid-cols-3">
        <Skeleton className="h-[28rem] rounded-lg lg:col-span-2" />
        <div className="rounded-lg border border-zinc-200 bg-white p-4">
          <SkeletonRows rows={6} />
        </div>
      </div>
    </div>
  );
}

function CallSummary({ call }: { call: CallWithEvents }) {
  const finished = isTerminalStatus(call.status);
  return (
    <Card className="mb-4" aria-label="Call summary">
      <CardBody className="py-3">
        <DescriptionList
          columns={6}
          items={[
            { term: "Started", value: <span className="tabular-nums">{formatDateTime(call.startedAt ?? call.createdAt)}</span> },
            { term: "Ended", value: <span className="tabular-nums">{formatDateTime(call.endedAt)}</span> },
            {
              term: "Duration",
              value: (
                <span className="font-mono tabular-nums" data-testid="call-duration">
                  {finished ? formatDuration(call.durationMs) : call.status === "running" ? <ElapsedTime since={call.startedAt} /> : "—"}
                </span>
              ),
            },
            { term: "Exit code", value: <span data-testid="call-exit-code"><ExitCode code={call.exitCode} /></span> },
            { term: "Requested by", value: call.requestedBy },
            { term: "Persona", value: call.persona ?? <span className="text-zinc-500">default</span> },
          ]}
        />
      </CardBody>
    </Card>
  );
}

/** The live part of the call page, mounted once the call is known: summary, timeline, args and result. */
function CallView({ call, onStreamTrouble }: { call: CallWithEvents; onStreamTrouble: (trouble: boolean) => void }) {
  const stream = useCallStream(call.id, call.events);
  const finished = isTerminalStatus(call.status);
  const trouble = stream.state === "reconnecting" || stream.state === "fallback";

  useEffect(() => onStreamTrouble(trouble), [trouble, onStreamTrouble]);

  return (
    <>
      <PageHeader
        eyebrow={
          <nav aria-label="Breadcrumb" className="flex items-center gap-1">
            <Link href="/calls" className="hover:text-zinc-800 hover:underline">
              Calls
            </Link>
            <span aria-hidden="true">/</span>
            <span className="font-mono">{call.id}</span>
          </nav>
        }
        title={
          <Link href={`/skills/${encodeURIComponent(call.skill)}`} className="font-mono hover:text-blue-700 hover:underline">
            {call.skill}
          </Link>
        }
        badges={<CallStatusBadge status={call.status} />}
        actions={
          <>
            {!finished && (call.status === "running" || call.status === "queued") ? <CancelCallButton callId={call.id} /> : null}
            <Link
              href={`/skills/${encodeURIComponent(call.skill)}`}
              className="inline-flex h-8 items-center rounded-md border border-zinc-300 bg-white px-3 text-sm font-medium text-zinc-800 shadow-xs hover:bg-zinc-50"
            >
              Open skill
            </Link>
          </>
        }
      />
      <CallSummary call={call} />
      {stream.state === "fallback" && !finished ? (
        <Alert tone="warning" title="Live stream unavailable" className="mb-4" live>
          The event stream closed; the page refreshes the call every {FALLBACK_POLL_MS / 1000} s instead.
        </Alert>
      ) : null}
      <div className="grid items-start gap-4 lg:grid-cols-3">
        <div className="space-y-4 lg:col-span-2">
          <CallTimeline stream={stream} finished={finished} />
        </div>
        <div className="space-y-4">
          {finished ? <CallResult call={call} /> : null}
          <Card aria-labelledby="call-args-title">
            <CardHeader title="Args" titleId="call-args-title" />
            <CardBody className="p-3">
              <CodeBlock text={JSON.stringify(call.args, null, 2)} label="Args JSON" className="max-h-72" />
            </CardBody>
          </Card>
        </div>
      </div>
    </>
  );
}

/**
 * The call page body: header (skill link, status, cancel), summary (started, duration, exit code),
 * the live stderr timeline, args and — once the call ends — its result. Falls back to polling the call
 * while the event stream is down.
 */
export function CallDetail({ id }: { id: string }) {
  const [streamTrouble, setStreamTrouble] = useState(false);
  const call = useCall(id, streamTrouble ? FALLBACK_POLL_MS : false);

  if (call.isPending) return <CallDetailSkeleton />;
  if (call.isError) {
    if (isApiError(call.error, "not_found")) {
      return (
        <EmptyState
          title="Call not found"
          actions={
            <Link href="/calls" className="text-sm font-medium text-blue-700 hover:underline">
              Back to the calls history
            </Link>
          }
        >
          No call has the id <code className="font-mono">{id}</code>.
        </EmptyState>
      );
    }
    return (
      <Alert
        tone="danger"
        title="Could not load the call"
        actions={
          <Button size="sm" onClick={() => void call.refetch()}>
            Retry
          </Button>
        }
      >
        {call.error.message}
      </Alert>
    );
  }
  return <CallView call={call.data} onStreamTrouble={setStreamTrouble} />;
}

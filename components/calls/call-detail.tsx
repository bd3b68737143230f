"use client";

import Link from "next/link";
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useMemo, useState, type ReactNode } from "react";
import { PageHeader } from "@/components/layout/page-header";
import { Alert } from "@/components/ui/alert";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { CodeBlock } from "@/components/ui/code-block";
import { DateTime } from "@/components/ui/date-time";
import { DescriptionList, type DescriptionItem } from "@/components/ui/description-list";
import { EmptyState } from "@/components/ui/empty-state";
import { EmptyValue } from "@/components/ui/empty-value";
import { LoadFailed } from "@/components/ui/load-failed";
import { Skeleton, SkeletonRows } from "@/components/ui/skeleton";
import { ShortDigest } from "@/components/workers/short-digest";
import { SandboxModeBadge } from "@/components/workers/worker-sandbox";
import { isApiError } from "@/lib/client/api-error";
import { formatBytes } from "@/lib/client/format-bytes";
import { queryKeys } from "@/lib/client/query-keys";
import { isAwaitingStatus, useCall } from "@/lib/client/use-calls";
import { useCallStream } from "@/lib/client/use-call-stream";
import { isTerminalStatus, type Call, type CallWithEvents } from "@/lib/types/call";
import { CallApprovalSummary } from "./call-approval-summary";
import { CallResult } from "./call-result";
import { CallStatusBadge } from "./call-status-badge";
import { CallTimeline } from "./call-timeline";
import { CancelCallButton } from "./cancel-call-button";
import { CopyCurlButton } from "./copy-curl-button";
import { Duration } from "./duration";
import { ElapsedTime } from "./elapsed-time";
import { ExitCode } from "./exit-code";
import { failureExcerpt } from "./failure-excerpt";
import { RerunLink } from "./rerun-link";
import { CallWaitingPanel } from "./call-waiting-panel";

/** How often the call is refetched while its event stream is down. */
const FALLBACK_POLL_MS = 2000;

/** Placeholder of the call page while the call loads: header, summary, then the full-width panels. */
export function CallDetailSkeleton() {
  return (
    <div role="status" aria-label="Loading call">
      <Skeleton className="mb-2 h-3 w-40" />
      <Skeleton className="mb-6 h-6 w-72" />
      <div className="mb-4 rounded-lg border border-zinc-200 bg-white p-4">
        <SkeletonRows rows={2} />
      </div>
      <Skeleton className="mb-4 h-[20rem] rounded-lg" />
      <div className="rounded-lg border border-zinc-200 bg-white p-4">
        <SkeletonRows rows={4} />
      </div>
    </div>
  );
}

/**
 * The summary's first item: when the call started — or, for one that never did (still queued, or
 * cancelled in the queue), when it was queued, marked "not started".
 */
function startItem(call: Call): DescriptionItem {
  if (call.startedAt) {
    return { term: "Started", value: <span data-testid="call-started"><DateTime iso={call.startedAt} zone /></span> };
  }
  return {
    term: "Queued at",
    value: (
      <span className="block" data-testid="call-started">
        <DateTime iso={call.createdAt} zone />
        <span className="block text-xs text-zinc-500">not started</span>
      </span>
    ),
  };
}

function CallDuration({ call }: { call: Call }) {
  if (isTerminalStatus(call.status)) return <Duration ms={call.durationMs} emptyLabel="never ran" />;
  if (call.status === "running") {
    return (
      <span className="font-mono tabular-nums">
        <ElapsedTime since={call.startedAt} />
      </span>
    );
  }
  return <EmptyValue label="not started" />;
}

/** How the call was sandboxed on its worker: the mode, then each limit in force; nothing until a worker ran it. */
function CallSandboxValue({ call }: { call: Call }) {
  if (!call.sandbox) return <EmptyValue label={call.worker ? "not reported yet" : "not run yet"} />;
  return (
    <span className="block" data-testid="call-sandbox">
      <SandboxModeBadge mode={call.sandbox.mode} />
      {call.sandbox.limits.length > 0 ? (
        <span className="mt-1 block space-y-0.5">
          {call.sandbox.limits.map((limit) => (
            <span key={limit} className="block font-mono text-[12px] text-zinc-700">
              {limit}
            </span>
          ))}
        </span>
      ) : (
        <span className="mt-1 block text-xs text-zinc-500">no limits enforced</span>
      )}
    </span>
  );
}

/** The worker and target items of the summary (DESIGN.md "Claiming": `Call` gains `worker` and `target`); Target only when the call named one. */
function workerItems(call: Call): DescriptionItem[] {
  const items: DescriptionItem[] = [
    {
      term: "Worker",
      value: (
        <span className="font-mono text-[12.5px] break-all" data-testid="call-worker">
          {call.worker ?? <EmptyValue label="not claimed by a worker yet" />}
        </span>
      ),
    },
  ];
  if (call.target) {
    items.push({ term: "Target", value: <span className="font-mono text-[12.5px] break-all" data-testid="call-target">{call.target}</span> });
  }
  items.push(
    { term: "Sandbox", value: <CallSandboxValue call={call} /> },
    { term: "Skill digest", value: <span data-testid="call-skill-digest"><ShortDigest digest={call.skillDigest} copy label="skill digest" emptyLabel="no skill digest" /></span> },
  );
  return items;
}

/**
 * The amber notice of a call that ran with less isolation than DESIGN.md asks ("Sandbox": a warning on
 * every call it runs): "Ran unsandboxed: …" when it ran with no sandbox, "Ran with less isolation: …"
 * when it was sandboxed but, say, a limit was not enforced.
 */
function CallSandboxWarning({ call }: { call: Call }) {
  if (!call.sandbox?.warning) return null;
  const title = call.sandbox.mode === "none" ? `Ran unsandboxed: ${call.sandbox.warning}` : `Ran with less isolation: ${call.sandbox.warning}`;
  return <Alert tone="warning" title={title} className="mb-4" data-testid="call-sandbox-warning" />;
}

/**
 * What a queued call waits for (DESIGN.md "Claiming"): a live worker that holds its skill with the
 * call's skill digest (and matches its target), with room under its concurrency limit.
 */
function QueuedNotice({ call }: { call: Call }) {
  return (
    <Alert tone="info" title="Waiting for a worker" className="mb-4" live data-testid="call-queued-notice">
      Only a live worker holding <span className="font-mono">{call.skill}</span>
      {call.skillDigest ? (
        <>
          {" "}
          with digest <ShortDigest digest={call.skillDigest} />
        </>
      ) : null}
      {call.target ? (
        <>
          {" "}
          and named or labelled <span className="font-mono">{call.target}</span>
        </>
      ) : null}{" "}
      runs it, once it has a free slot. See{" "}
      <Link href="/workers" className="font-medium underline">
        Workers
      </Link>{" "}
      for who holds what.
    </Alert>
  );
}

function CallSummary({ call }: { call: Call }) {
  return (
    <Card className="mb-4" aria-label="Call summary">
      <CardBody className="py-3">
        <DescriptionList
          columns={6}
          items={[
            startItem(call),
            { term: "Ended", value: <DateTime iso={call.endedAt} zone emptyLabel="not ended yet" /> },
            { term: "Duration", value: <span data-testid="call-duration"><CallDuration call={call} /></span> },
            { term: "Exit code", value: <span data-testid="call-exit-code"><ExitCode code={call.exitCode} /></span> },
            {
              term: "Requested by",
              value: (
                <span data-testid="call-requested-by">
                  {call.requestedBy}
                  {call.tokenName ? <span className="block text-xs text-zinc-500">via token {call.tokenName}</span> : null}
                </span>
              ),
            },
            { term: "Persona", value: <span data-testid="call-persona">{call.persona ?? <EmptyValue label="no persona" />}</span> },
            { term: "Confirmed by", value: <span data-testid="call-confirmed-by">{call.confirmedBy ?? <EmptyValue label="no confirmation" />}</span> },
            ...workerItems(call),
            {
              term: "Call digest (skill digest + args)",
              wide: true,
              value: (
                <span className="font-mono text-xs break-all" data-testid="call-digest" title="SHA-256 of the skill name, the skill's digest and the canonical args">
                  {call.digest ?? <EmptyValue label="no digest" />}
                </span>
              ),
            },
          ]}
        />
      </CardBody>
    </Card>
  );
}

function ArgsCard({ call }: { call: Call }) {
  const { text, bytes } = useMemo(() => ({ text: JSON.stringify(call.args, null, 2), bytes: new TextEncoder().encode(JSON.stringify(call.args ?? {})).length }), [call.args]);
  return (
    <Card aria-labelledby="call-args-title">
      <CardHeader
        title={
          <>
            Args <span className="ml-1 text-xs font-normal text-zinc-500" data-testid="call-args-size">{formatBytes(bytes)}</span>
          </>
        }
        titleId="call-args-title"
        actions={<CopyCurlButton size="sm" skill={call.skill} getArgs={() => call.args ?? {}} />}
      />
      <CardBody className="p-3">
        <CodeBlock text={text} label="Args JSON" className="max-h-96" wrap />
      </CardBody>
    </Card>
  );
}

/**
 * The live part of the call page, mounted once the call is known. Full-width panels, top to bottom:
 * summary, then — once it ended — the result (with why it failed), the stderr timeline (the focus
 * while it runs), and the args (with "Copy as curl"). The header links to a re-run with the same args.
 */
function CallView({ call, onStreamTrouble }: { call: CallWithEvents; onStreamTrouble: (trouble: boolean) => void }) {
  const stream = useCallStream(call.id, call.events);
  const queryClient = useQueryClient();
  const finished = isTerminalStatus(call.status);
  // Polled only once the browser gave up on the stream: while it reconnects, the stream itself resumes
  // where it stopped, and polling would download the whole stored timeline every 2 s.
  const trouble = stream.state === "fallback";
  const excerpt = useMemo(() => (finished ? failureExcerpt(stream.chunks, call.status, call.error) : []), [finished, stream.chunks, call.status, call.error]);
  const startedLineSeen = call.status === "queued" && stream.lineCount > 0;

  useEffect(() => onStreamTrouble(trouble), [trouble, onStreamTrouble]);

  // A queued call's first line means it left the queue: fetch its new status and start time.
  useEffect(() => {
    if (startedLineSeen) void queryClient.invalidateQueries({ queryKey: queryKeys.calls.detail(call.id) });
  }, [startedLineSeen, call.id, queryClient]);

  return (
    <>
      <CallHeader
        call={call}
        actions={
          <>
            {call.status === "running" || call.status === "queued" ? <CancelCallButton callId={call.id} status={call.status} /> : null}
            <RerunLink call={call} />
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
      <CallSandboxWarning call={call} />
      {call.status === "queued" ? <QueuedNotice call={call} /> : null}
      {stream.state === "fallback" && !finished ? (
        <Alert tone="warning" title="Live stream unavailable" className="mb-4" live>
          The event stream closed; the page refreshes the call every {FALLBACK_POLL_MS / 1000} s instead.
        </Alert>
      ) : null}
      <div className="space-y-4">
        {finished ? <CallResult call={call} excerpt={excerpt} /> : null}
        {call.digest ? <CallApprovalSummary callId={call.id} /> : null}
        <CallTimeline stream={stream} status={call.status} />
        <ArgsCard call={call} />
      </div>
    </>
  );
}

/** The page header of a call: breadcrumb, skill link, status badge and `actions`. */
function CallHeader({ call, actions }: { call: Call; actions?: ReactNode }) {
  return (
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
      actions={actions}
    />
  );
}

/**
 * A call that waits for people (awaiting confirmation or approval): no process and no event stream
 * yet, so the page shows what it waits for (CallWaitingPanel) and the exact args while useCall re-reads
 * the call every 1.5 s; once it starts (on any console process) CallDetail swaps in the live CallView.
 */
function WaitingCallView({ call }: { call: Call }) {
  return (
    <>
      <CallHeader call={call} />
      <CallSummary call={call} />
      <div className="space-y-4">
        <CallWaitingPanel call={call} />
        <ArgsCard call={call} />
      </div>
    </>
  );
}

/**
 * The call page body: header (skill link, status, cancel), summary (started or queued, ended,
 * duration, exit code, requester and token, persona, confirmed by, worker and target, sandbox mode and
 * limits, skill digest, digest), the amber "Ran unsandboxed" notice when its worker warned, what a
 * queued call waits for, then — once the call
 * ends — its result and approval, the live stderr timeline and the args. A call waiting for a
 * confirmation or signatures shows WaitingCallView and is polled until it starts. Falls back to
 * polling the call while the event stream is down.
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
      <LoadFailed title="Could not load the call" error={call.error} onRetry={() => void call.refetch()} />
    );
  }
  if (isAwaitingStatus(call.data.status)) return <WaitingCallView call={call.data} />;
  return <CallView call={call.data} onStreamTrouble={setStreamTrouble} />;
}

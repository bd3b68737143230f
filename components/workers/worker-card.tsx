"use client";

import { useId } from "react";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { cx } from "@/components/ui/class-names";
import { DateTime } from "@/components/ui/date-time";
import { DescriptionList } from "@/components/ui/description-list";
import { formatInstantTitle, formatRelative } from "@/lib/client/format-time";
import type { WorkerInfo } from "@/lib/types/worker";
import { WorkerLimits, WorkerSandboxMode } from "./worker-sandbox";
import { WorkerSkills } from "./worker-skills";
import { WORKER_STATE_MEANING, WorkerStateBadge } from "./worker-state-badge";

/** Drifted skill names listed in the alert before "and N more" (the full list is under "Show skills"). */
const DRIFT_NAMES_SHOWN = 8;

/** `names`: the first drifted skills the listing carries; `count`: how many drifted in all. */
function DriftAlert({ names, count }: { names: string[]; count: number }) {
  const listed = names.slice(0, DRIFT_NAMES_SHOWN);
  return (
    <Alert tone="warning" title={`${count.toLocaleString()} drifted ${count === 1 ? "skill" : "skills"}`} data-testid="worker-drift">
      <p>Drifted: never given these skills&apos; calls until its copy matches the console&apos;s.</p>
      <p className="mt-1 font-mono text-[12px] break-words">
        {listed.join(", ")}
        {count > listed.length ? ` and ${(count - listed.length).toLocaleString()} more` : null}
      </p>
    </Alert>
  );
}

function Heartbeat({ iso, now }: { iso: string; now: number }) {
  return (
    <span className="block">
      <time dateTime={iso} title={formatInstantTitle(iso)} className="tabular-nums" data-testid="worker-heartbeat">
        {formatRelative(iso, now)}
      </time>
      <span className="block text-xs text-zinc-500">
        <DateTime iso={iso} />
      </span>
    </span>
  );
}

/**
 * One worker on the Workers page (DESIGN.md "Workers and the sandbox"): name, state, labels and whether
 * it is the console's own; its sandbox warning as an amber alert (e.g. calls run unsandboxed) and its
 * drifted skills; host and pid, version, sandbox mode, the limits in force and how, last heartbeat
 * (relative to `now`, ms epoch, so one clock ticks every card), running calls against its concurrency,
 * token and registration time; then the skills it holds. A stopped worker is shown muted.
 */
export function WorkerCard({ worker, now }: { worker: WorkerInfo; now: number }) {
  const titleId = useId();
  const { sandbox } = worker;
  const full = worker.running >= worker.concurrency;
  return (
    <Card
      aria-labelledby={titleId}
      className={cx("min-w-0", worker.state === "stopped" && "bg-zinc-50/80")}
      data-testid="worker-card"
      data-worker-name={worker.name}
      data-worker-state={worker.state}
    >
      <div className="flex flex-wrap items-start justify-between gap-x-4 gap-y-2 border-b border-zinc-200 px-4 py-3">
        <div className="min-w-0">
          <div className="flex flex-wrap items-center gap-2">
            <h3 id={titleId} className="font-mono text-sm font-semibold break-all text-zinc-900">
              {worker.name}
            </h3>
            <WorkerStateBadge state={worker.state} />
            {worker.token.local ? <Badge tone="blue">the console&apos;s own</Badge> : null}
          </div>
          {worker.state !== "live" ? <p className="mt-0.5 text-xs text-zinc-500">{WORKER_STATE_MEANING[worker.state]}</p> : null}
          {worker.labels.length > 0 ? (
            <ul className="mt-1.5 flex flex-wrap gap-1" aria-label="Labels">
              {worker.labels.map((label) => (
                <li key={label}>
                  <Badge className="font-mono">{label}</Badge>
                </li>
              ))}
            </ul>
          ) : null}
        </div>
        <p className="text-sm text-zinc-700 tabular-nums" data-testid="worker-running">
          <span className={cx("font-semibold", full ? "text-amber-800" : "text-zinc-900")}>{worker.running}</span> / {worker.concurrency} running
          {full && worker.state === "live" ? <span className="block text-right text-xs text-amber-800">at capacity</span> : null}
        </p>
      </div>
      <div className="space-y-3 p-4">
        {sandbox.warning ? (
          <Alert tone="warning" title={sandbox.warning} data-testid="worker-sandbox-warning">
            Every call this worker runs carries this warning on its call page.
          </Alert>
        ) : null}
        {worker.skillCounts.drifted > 0 ? <DriftAlert names={worker.drifted} count={worker.skillCounts.drifted} /> : null}
        <DescriptionList
          items={[
            {
              term: "Host",
              value: (
                <span className="break-all">
                  {worker.host}
                  {worker.pid !== null ? <span className="block text-xs text-zinc-500">pid {worker.pid}</span> : null}
                </span>
              ),
            },
            { term: "Version", value: <span className="font-mono text-[12.5px] break-all">{worker.version}</span> },
            { term: "Last heartbeat", value: <Heartbeat iso={worker.lastSeenAt} now={now} /> },
            { term: "Registered", value: <DateTime iso={worker.registeredAt} /> },
            { term: "Sandbox", value: <WorkerSandboxMode sandbox={sandbox} /> },
            { term: "Limits per call", value: <WorkerLimits sandbox={sandbox} /> },
            {
              term: "Token",
              value: (
                <span className="break-all">
                  {worker.token.name}
                  {worker.token.local ? <span className="block text-xs text-zinc-500">managed by the console</span> : null}
                </span>
              ),
            },
          ]}
        />
        <WorkerSkills worker={worker} />
      </div>
    </Card>
  );
}

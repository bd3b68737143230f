"use client";

import Link from "next/link";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { cx } from "@/components/ui/class-names";
import { LoadFailed } from "@/components/ui/load-failed";
import { SkeletonRows } from "@/components/ui/skeleton";
import { useSkillWorkers } from "@/lib/client/use-skill-workers";
import type { SkillHolders } from "@/lib/types/worker";
import { ShortDigest } from "./short-digest";
import { WorkerStateBadge } from "./worker-state-badge";

type Holder = SkillHolders["workers"][number];

const STATE_ORDER: Record<Holder["state"], number> = { live: 0, lost: 1, stopped: 2 };

/** True when the worker would be given this skill's calls now: live, holding the console's digest, and able to run it. */
function canRun(holder: Holder): boolean {
  return holder.state === "live" && !holder.drifted && holder.available;
}

function HolderRow({ holder }: { holder: Holder }) {
  return (
    <li
      className={cx("space-y-1 px-4 py-2.5", holder.drifted && "bg-amber-50/70", holder.state === "stopped" && "text-zinc-500")}
      data-testid="skill-holder"
      data-worker-name={holder.name}
      data-drifted={holder.drifted || undefined}
    >
      <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
        <span className="font-mono text-[12.5px] font-medium break-all text-zinc-900">{holder.name}</span>
        <WorkerStateBadge state={holder.state} />
        {holder.drifted ? <Badge tone="amber">drifted</Badge> : canRun(holder) ? <Badge tone="green">matches</Badge> : null}
        <span className="ml-auto">
          <ShortDigest digest={holder.digest} label={`digest of ${holder.name}'s copy`} emptyLabel="its copy could not be hashed" />
        </span>
      </div>
      <p className="text-xs break-all text-zinc-500">{holder.host}</p>
      {holder.drifted ? (
        <p className="text-xs text-amber-800">Drifted: its copy differs from the console&apos;s, so it is never given this skill&apos;s calls until its copy matches.</p>
      ) : null}
      {holder.available ? null : <p className="text-xs break-words text-red-700">Unavailable there: {holder.reason ?? "no reason given"}</p>}
    </li>
  );
}

/**
 * The skill page's "Workers" card (`GET /api/v1/skills/{name}/workers`; DESIGN.md "Claiming": the skill
 * page shows which workers hold which digest): the console's digest (12 characters, full one copyable)
 * or why it cannot be hashed, then each worker holding the skill with its state and digest — drifted
 * ones in amber with what that means, unavailable ones with the reason — and an empty state when none
 * holds it (calls stay queued). Refreshed every 5 s.
 */
export function SkillWorkersCard({ skill }: { skill: string }) {
  const holders = useSkillWorkers(skill);
  const data = holders.data;
  const sorted = data ? [...data.workers].sort((a, b) => STATE_ORDER[a.state] - STATE_ORDER[b.state] || a.name.localeCompare(b.name)) : [];
  const runnable = sorted.filter(canRun).length;

  return (
    <Card aria-labelledby="skill-workers-title" data-testid="skill-workers">
      <CardHeader
        title="Workers"
        titleId="skill-workers-title"
        description="Which workers hold this skill, and whether their copy is the console's."
        actions={
          <Link href="/workers" className="text-xs font-medium text-blue-700 hover:underline">
            All workers
          </Link>
        }
      />
      {holders.isPending ? (
        <SkeletonRows rows={3} className="p-4" />
      ) : !data ? (
        <div className="p-3">
          <LoadFailed title="Could not load the workers" error={holders.error} onRetry={() => void holders.refetch()} />
        </div>
      ) : (
        <>
          <CardBody className="space-y-2 border-b border-zinc-200 py-3">
            <div className="flex flex-wrap items-center gap-x-2 gap-y-1 text-sm">
              <span className="text-[11px] font-medium tracking-wide text-zinc-500 uppercase">Console&apos;s digest</span>
              <span data-testid="console-digest">
                <ShortDigest digest={data.digest} copy label="console's digest of this skill" emptyLabel="cannot be hashed" />
              </span>
            </div>
            {data.digestError ? (
              <Alert tone="danger" title="The console's copy cannot be hashed">
                {data.digestError}. New calls of this skill cannot be bound to a digest until this is fixed.
              </Alert>
            ) : null}
            {sorted.length > 0 && runnable === 0 ? (
              <Alert tone="warning" title="No worker can run it now">
                Calls stay queued until a live worker holds the console&apos;s copy.
              </Alert>
            ) : null}
          </CardBody>
          {sorted.length === 0 ? (
            <p className="px-4 py-6 text-center text-sm text-zinc-500" data-testid="skill-workers-empty">
              No worker holds this skill: calls stay queued until one does.
            </p>
          ) : (
            <ul className="divide-y divide-zinc-100" aria-label="Workers holding this skill">
              {sorted.map((holder) => (
                <HolderRow key={holder.id} holder={holder} />
              ))}
            </ul>
          )}
        </>
      )}
    </Card>
  );
}

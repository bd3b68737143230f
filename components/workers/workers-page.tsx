"use client";

import { PageHeader } from "@/components/layout/page-header";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { LoadFailed } from "@/components/ui/load-failed";
import { Skeleton, SkeletonRows } from "@/components/ui/skeleton";
import { useIdentity } from "@/lib/client/identity";
import { useWorkers } from "@/lib/client/use-workers";
import { roleAtLeast } from "@/lib/types/identity";
import type { WorkerInfo } from "@/lib/types/worker";
import { WorkersList } from "./workers-list";
import { WorkerTokensSection } from "./worker-tokens-section";

/** Placeholder of the workers list while it loads: two worker cards. */
export function WorkersSkeleton() {
  return (
    <div role="status" aria-label="Loading workers" className="space-y-3">
      {[0, 1].map((index) => (
        <div key={index} className="rounded-lg border border-zinc-200 bg-white">
          <div className="flex items-center gap-2 border-b border-zinc-200 px-4 py-3">
            <Skeleton className="h-4 w-32" />
            <Skeleton className="h-4 w-12" />
          </div>
          <SkeletonRows rows={4} className="p-4" />
        </div>
      ))}
    </div>
  );
}

/** "1 live · 2 stopped · 3 calls running": the section's one-line summary. */
function workersSummary(workers: WorkerInfo[]): string {
  const count = (state: WorkerInfo["state"]) => workers.filter((worker) => worker.state === state).length;
  const running = workers.reduce((sum, worker) => sum + worker.running, 0);
  const parts = [`${count("live")} live`];
  if (count("lost") > 0) parts.push(`${count("lost")} lost`);
  if (count("stopped") > 0) parts.push(`${count("stopped")} stopped`);
  parts.push(`${running} ${running === 1 ? "call" : "calls"} running`);
  return parts.join(" · ");
}

/**
 * The Workers page body (DESIGN.md "Workers and the sandbox", "Pages"): for operators and above, every
 * worker with its state, sandbox and warning, limits in force, heartbeat, running calls and skills,
 * refreshed every 5 s; for admins also the "Worker tokens" section (create, shown once, revoke).
 * Viewers are told the page needs the operator role.
 */
export function WorkersPage() {
  const identity = useIdentity();
  const role = identity.data?.role;
  const allowed = role ? roleAtLeast(role, "operator") : false;
  const isAdmin = role === "admin";
  const workers = useWorkers(allowed);

  const header = (
    <PageHeader
      title="Workers"
      description="Workers run every call, each on its own host with its own skills. A call goes only to a live worker holding its skill with the call's digest."
    />
  );

  if (identity.isPending) {
    return (
      <>
        {header}
        <WorkersSkeleton />
      </>
    );
  }
  if (!identity.data) {
    return (
      <>
        {header}
        <Alert
          tone="danger"
          title="Could not tell who you are"
          actions={
            <Button size="sm" onClick={() => void identity.refetch()}>
              Retry
            </Button>
          }
        >
          {identity.error?.message}
        </Alert>
      </>
    );
  }
  if (!allowed) {
    return (
      <>
        {header}
        <Alert tone="info" title="Workers need the operator role">
          You are signed in as a {role}. Ask an admin for the operator role to see the workers that run calls.
        </Alert>
      </>
    );
  }

  return (
    <>
      {header}
      <div className="space-y-6">
        <section aria-labelledby="workers-list-title" className="min-w-0">
          <div className="mb-2 flex flex-wrap items-baseline justify-between gap-x-3">
            <h2 id="workers-list-title" className="text-sm font-semibold text-zinc-900">
              Registered workers
            </h2>
            {workers.data ? (
              <p className="text-xs text-zinc-500" data-testid="workers-summary">
                {workersSummary(workers.data)}
              </p>
            ) : null}
          </div>
          {workers.isPending ? (
            <WorkersSkeleton />
          ) : workers.data ? (
            <>
              {workers.isError ? (
                <Alert tone="warning" title="Could not refresh the workers" className="mb-3" live>
                  {workers.error.message} Showing the last answer; the page tries again every few seconds.
                </Alert>
              ) : null}
              <WorkersList workers={workers.data} canCreateTokens={isAdmin} />
            </>
          ) : (
            <LoadFailed title="Could not load the workers" error={workers.error} onRetry={() => void workers.refetch()} />
          )}
        </section>
        {isAdmin ? <WorkerTokensSection workers={workers.data} /> : null}
      </div>
    </>
  );
}

"use client";

import { useId, useState } from "react";
import { useNow } from "@/components/approvals/use-now";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import type { WorkerInfo } from "@/lib/types/worker";
import { WorkerCard } from "./worker-card";

const STATE_ORDER: Record<WorkerInfo["state"], number> = { live: 0, lost: 1, stopped: 2 };

/** Live, then lost, then stopped; by name, then newest registration first within each. */
function ordered(workers: WorkerInfo[]): WorkerInfo[] {
  return [...workers].sort(
    (a, b) => STATE_ORDER[a.state] - STATE_ORDER[b.state] || a.name.localeCompare(b.name) || b.registeredAt.localeCompare(a.registeredAt),
  );
}

/**
 * The empty Workers page (DESIGN.md "Workers and the sandbox"): no worker ever registered, so calls
 * stay queued; how to start one (`npm start` runs a local one; `npm run worker` with CONSOLE_URL and
 * WORKER_TOKEN elsewhere). `canCreateTokens` points an admin at the token form below.
 */
export function NoWorkersState({ canCreateTokens }: { canCreateTokens: boolean }) {
  return (
    <EmptyState title="No worker is registered" className="py-8">
      <p>Calls stay queued until a worker that holds their skill registers.</p>
      <p className="mt-2">
        <code className="font-mono text-[13px]">npm start</code> runs the console with a local worker named “local”. To run calls on another host,{" "}
        {canCreateTokens ? "create a worker token below" : "ask an admin for a worker token"} and start one there with{" "}
        <code className="font-mono text-[13px] break-all">CONSOLE_URL=… WORKER_TOKEN_FILE=… npm run worker</code>.
      </p>
    </EmptyState>
  );
}

/**
 * The workers as cards, live and lost first; stopped ones (every earlier session of a restarted worker
 * stays listed) folded behind a button. Says so in amber when no worker is live (calls stay queued).
 * One clock ticks every card's "last heartbeat".
 */
export function WorkersList({ workers, canCreateTokens }: { workers: WorkerInfo[]; canCreateTokens: boolean }) {
  const now = useNow(1000);
  const [showStopped, setShowStopped] = useState(false);
  const stoppedId = useId();
  if (workers.length === 0) return <NoWorkersState canCreateTokens={canCreateTokens} />;

  const sorted = ordered(workers);
  const active = sorted.filter((worker) => worker.state !== "stopped");
  const stopped = sorted.filter((worker) => worker.state === "stopped");
  const live = active.filter((worker) => worker.state === "live").length;

  return (
    <div className="space-y-3">
      {live === 0 ? (
        <Alert tone="warning" title="No worker is live" data-testid="no-live-worker">
          Calls stay queued (and can be cancelled) until a worker holding their skill is heard from again.
        </Alert>
      ) : null}
      {active.map((worker) => (
        <WorkerCard key={worker.id} worker={worker} now={now} />
      ))}
      {stopped.length > 0 ? (
        <div>
          <Button size="sm" variant="ghost" aria-expanded={showStopped} aria-controls={stoppedId} onClick={() => setShowStopped((value) => !value)}>
            {showStopped ? "Hide" : "Show"} {stopped.length} stopped {stopped.length === 1 ? "worker" : "workers"}
          </Button>
          <div id={stoppedId} hidden={!showStopped} className="mt-2 space-y-3">
            {showStopped ? stopped.map((worker) => <WorkerCard key={worker.id} worker={worker} now={now} />) : null}
          </div>
        </div>
      ) : null}
    </div>
  );
}

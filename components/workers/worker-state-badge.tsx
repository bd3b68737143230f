import { Badge, type BadgeTone } from "@/components/ui/badge";
import type { WorkerInfo } from "@/lib/types/worker";

const TONE: Record<WorkerInfo["state"], BadgeTone> = { live: "green", lost: "amber", stopped: "neutral" };

/** What each state means, in words next to nothing hover-only: used as the badge's accessible description. */
export const WORKER_STATE_MEANING: Record<WorkerInfo["state"], string> = {
  live: "heard from within its lease",
  lost: "silent longer than its lease",
  stopped: "said goodbye or was cut off",
};

/** A worker's state (live, lost, stopped; DESIGN.md "Workers and the sandbox") as a badge, pulsing while live. */
export function WorkerStateBadge({ state }: { state: WorkerInfo["state"] }) {
  return (
    <Badge tone={TONE[state]} dot pulse={state === "live"} data-worker-state={state} title={WORKER_STATE_MEANING[state]}>
      {state}
    </Badge>
  );
}

import { WorkersSkeleton } from "@/components/workers/workers-page";

/** Route loading state of `/workers`: the workers list's skeleton. */
export default function Loading() {
  return <WorkersSkeleton />;
}

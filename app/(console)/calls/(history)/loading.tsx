import { CallsTableSkeleton } from "@/components/calls/calls-page";

/** Route loading state of `/calls`: the history table's skeleton. */
export default function Loading() {
  return <CallsTableSkeleton />;
}

import { CallDetailSkeleton } from "@/components/calls/call-detail";

/** Route loading state of `/calls/{id}`: the call page's skeleton. */
export default function Loading() {
  return <CallDetailSkeleton />;
}

import { ApprovalsSkeleton } from "@/components/approvals/approvals-page";

/** Route loading state of `/approvals`: the queue's skeleton. */
export default function Loading() {
  return <ApprovalsSkeleton />;
}

import { AuditSkeleton } from "@/components/audit/audit-page";

/** Route loading state of `/audit`: the audit table's skeleton. */
export default function Loading() {
  return <AuditSkeleton />;
}

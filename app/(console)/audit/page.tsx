import type { Metadata } from "next";
import { Suspense } from "react";
import { AuditPage, AuditSkeleton } from "@/components/audit/audit-page";

/** Page title. */
export const metadata: Metadata = { title: "Audit" };

/** `/audit`: the append-only audit trail, newest first (`?callId=` for one call; read from the URL, hence the Suspense). */
export default function Page() {
  return (
    <Suspense fallback={<AuditSkeleton />}>
      <AuditPage />
    </Suspense>
  );
}

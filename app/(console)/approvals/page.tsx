import type { Metadata } from "next";
import { Suspense } from "react";
import { ApprovalsPage, ApprovalsSkeleton } from "@/components/approvals/approvals-page";

/** Page title. */
export const metadata: Metadata = { title: "Approvals" };

/** `/approvals`: the dual-sign queue with Sign and Deny (the status tab is read from the URL, hence the Suspense). */
export default function Page() {
  return (
    <Suspense fallback={<ApprovalsSkeleton />}>
      <ApprovalsPage />
    </Suspense>
  );
}

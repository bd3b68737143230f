import type { Metadata } from "next";
import { Suspense } from "react";
import { CallsPage, CallsTableSkeleton } from "@/components/calls/calls-page";

/** Page title. */
export const metadata: Metadata = { title: "Calls" };

/** `/calls`: the calls history with skill and status filters (read from the URL, hence the Suspense). */
export default function Page() {
  return (
    <Suspense fallback={<CallsTableSkeleton />}>
      <CallsPage />
    </Suspense>
  );
}

import { LoaderReportSkeleton } from "@/components/loader/loader-report-view";

/** Route loading state of `/loader`: the report's skeleton. */
export default function Loading() {
  return <LoaderReportSkeleton />;
}

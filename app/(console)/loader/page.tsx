import type { Metadata } from "next";
import { LoaderReportView } from "@/components/loader/loader-report-view";

/** Page title. */
export const metadata: Metadata = { title: "Loader" };

/** `/loader`: the loader report and the Rescan button. */
export default function Page() {
  return <LoaderReportView />;
}

import type { Metadata } from "next";
import { WorkersPage } from "@/components/workers/workers-page";

/** Page title. */
export const metadata: Metadata = { title: "Workers" };

/** `/workers`: the workers that run calls (state, sandbox, limits, skills) and, for admins, worker tokens. */
export default function Page() {
  return <WorkersPage />;
}

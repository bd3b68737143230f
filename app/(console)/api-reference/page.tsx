import type { Metadata } from "next";
import { ApiReferenceView } from "@/components/api-reference/api-reference-view";

/** Page title. */
export const metadata: Metadata = { title: "API reference" };

/** `/api-reference`: the console's HTTP API, rendered from `GET /api/v1/openapi.json` (any signed-in person). */
export default function Page() {
  return <ApiReferenceView />;
}

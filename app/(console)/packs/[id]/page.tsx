import type { Metadata } from "next";
import { PackReview } from "@/components/packs/pack-review";

/** Page title. */
export const metadata: Metadata = { title: "Pack review" };

/** `/packs/{id}` (admin): one pack version's review — skills, file diffs, digest list — and its actions. */
export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <PackReview id={id} />;
}

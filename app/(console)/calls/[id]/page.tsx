import type { Metadata } from "next";
import { CallDetail } from "@/components/calls/call-detail";

type Props = { params: Promise<{ id: string }> };

/** Page title: the call id, shortened. */
export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { id } = await params;
  return { title: `Call ${id.slice(0, 12)}` };
}

/** `/calls/{id}`: one call with its live stderr timeline, args and result. */
export default async function Page({ params }: Props) {
  const { id } = await params;
  return <CallDetail id={id} />;
}

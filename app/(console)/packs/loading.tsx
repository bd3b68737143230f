import { PacksSkeleton } from "@/components/packs/packs-page";

/** Route loading state of `/packs`: the packs table's skeleton. */
export default function Loading() {
  return <PacksSkeleton />;
}

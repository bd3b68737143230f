import { ApiReferenceSkeleton } from "@/components/api-reference/api-reference-view";

/** Route loading state of `/api-reference`: the reference's skeleton. */
export default function Loading() {
  return <ApiReferenceSkeleton />;
}

import { TokensSkeleton } from "@/components/tokens/tokens-page";

/** Route loading state of `/tokens`: the tokens table's skeleton. */
export default function Loading() {
  return <TokensSkeleton />;
}

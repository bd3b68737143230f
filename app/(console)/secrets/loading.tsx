import { SecretsSkeleton } from "@/components/secrets/secrets-page";

/** Route loading state of `/secrets`: the secrets table's skeleton. */
export default function Loading() {
  return <SecretsSkeleton />;
}

import { PersonasSkeleton } from "@/components/personas/personas-page";

/** Route loading state of `/personas`: the personas page's skeleton. */
export default function Loading() {
  return <PersonasSkeleton />;
}

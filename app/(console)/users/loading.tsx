import { UsersSkeleton } from "@/components/users/users-page";

/** Route loading state of `/users`: the users table's skeleton. */
export default function Loading() {
  return <UsersSkeleton />;
}

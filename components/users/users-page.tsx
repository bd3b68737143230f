"use client";

import { AdminOnly } from "@/components/layout/admin-only";
import { PageHeader } from "@/components/layout/page-header";
import { Card } from "@/components/ui/card";
import { LoadFailed } from "@/components/ui/load-failed";
import { SkeletonRows } from "@/components/ui/skeleton";
import { useIdentity } from "@/lib/client/identity";
import { useUsers } from "@/lib/client/use-users";
import { CreateUserForm } from "./create-user-form";
import { UsersTable } from "./users-table";

/** Placeholder of the users table while it loads. */
export function UsersSkeleton() {
  return (
    <Card>
      <SkeletonRows rows={5} className="p-4" />
    </Card>
  );
}

/**
 * The Users page body (issue 4 point 1; admins only): everyone with an account, their roles (changed
 * in place, demotions confirmed), and the form that creates a person. Others read "Admins only".
 */
export function UsersPage() {
  return (
    <AdminOnly
      header={<PageHeader title="Users" description="People who may sign in, and their roles: viewer < operator < approver < admin." />}
      skeleton={<UsersSkeleton />}
      refusal="Only an admin sees and changes the people of the console."
    >
      <UsersPageBody />
    </AdminOnly>
  );
}

/** What an admin sees of the Users page below its header. */
function UsersPageBody() {
  const identity = useIdentity();
  const users = useUsers();
  return (
    <>
      <div className="space-y-4">
        <CreateUserForm />
        {users.isPending ? (
          <UsersSkeleton />
        ) : users.isError ? (
          <LoadFailed title="Could not load the people" error={users.error} onRetry={() => void users.refetch()} />
        ) : (
          <Card className="overflow-hidden">
            <UsersTable users={users.data} selfId={identity.data?.userId} />
          </Card>
        )}
      </div>
    </>
  );
}

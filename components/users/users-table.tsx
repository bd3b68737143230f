"use client";

import { useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { DateTime } from "@/components/ui/date-time";
import { ConfirmDialog } from "@/components/ui/dialog";
import { Select } from "@/components/ui/input";
import { Table, TableBody, TableHead, Td, Th, Tr } from "@/components/ui/table";
import { useSetUserRole } from "@/lib/client/use-users";
import { ROLES, roleAtLeast, type ConsoleUser, type Role } from "@/lib/types/identity";

/** A role change waiting for the admin's confirmation (demotions only). */
interface PendingChange {
  user: ConsoleUser;
  role: Role;
}

/**
 * The people of the console (email, name, role, created) with a role select per person. Promotions
 * apply at once; a demotion asks for confirmation first, since it takes rights away from the person's
 * next request on. `selfId` marks the signed-in admin's own row.
 */
export function UsersTable({ users, selfId }: { users: ConsoleUser[]; selfId: string | undefined }) {
  const setRole = useSetUserRole();
  const [pending, setPending] = useState<PendingChange | null>(null);

  function choose(user: ConsoleUser, role: Role) {
    if (role === user.role) return;
    setRole.reset();
    if (roleAtLeast(role, user.role)) setRole.mutate({ id: user.id, role });
    else setPending({ user, role });
  }

  return (
    <>
      {setRole.isError ? (
        <Alert tone="danger" title="The role was not changed" className="m-3">
          {setRole.error.message}
        </Alert>
      ) : null}
      <Table caption="People with an account">
        <TableHead>
          <Th>Email</Th>
          <Th>Name</Th>
          <Th>Role</Th>
          <Th>Created</Th>
        </TableHead>
        <TableBody>
          {users.map((user) => (
            <Tr key={user.id}>
              <Td label="Email" className="font-medium">
                {user.email}
                {user.id === selfId ? (
                  <Badge tone="blue" className="ml-2">
                    you
                  </Badge>
                ) : null}
              </Td>
              <Td label="Name">{user.name}</Td>
              <Td label="Role">
                <Select
                  aria-label={`Role of ${user.email}`}
                  value={user.role}
                  disabled={setRole.isPending && setRole.variables?.id === user.id}
                  onChange={(event) => choose(user, event.target.value as Role)}
                  className="w-36 min-w-32"
                >
                  {ROLES.map((role) => (
                    <option key={role} value={role}>
                      {role}
                    </option>
                  ))}
                </Select>
              </Td>
              <Td label="Created" className="whitespace-nowrap">
                <DateTime iso={user.createdAt} />
              </Td>
            </Tr>
          ))}
        </TableBody>
      </Table>
      <ConfirmDialog
        open={pending !== null}
        title={`Make ${pending?.user.email ?? ""} ${pending?.role ?? ""}?`}
        confirmLabel="Change role"
        danger
        pending={setRole.isPending}
        onClose={() => setPending(null)}
        onConfirm={() => {
          if (pending) setRole.mutate({ id: pending.user.id, role: pending.role }, { onSettled: () => setPending(null) });
        }}
      >
        {pending?.user.id === selfId ? "You are demoting yourself: you lose the admin pages at once. " : null}
        {pending ? `${pending.user.email} goes from ${pending.user.role} to ${pending.role}; it takes effect on their next request, and their signatures on pending approvals stop counting where the new role is below approver.` : null}
      </ConfirmDialog>
    </>
  );
}

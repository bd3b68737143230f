"use client";

import { useState, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { Input, Select } from "@/components/ui/input";
import { useCreateUser } from "@/lib/client/use-users";
import { ROLES, type Role } from "@/lib/types/identity";

/** The shortest password the server accepts (MIN_PASSWORD_LENGTH of lib/server/env.ts), as a hint for the browser. */
const MIN_PASSWORD_LENGTH = 12;

/**
 * The form that creates a person (`POST /api/v1/users`, admin): email, initial password, role. The
 * server's 400 (short password, bad email) and 409 (email taken) messages are shown under the form.
 */
export function CreateUserForm() {
  const create = useCreateUser();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [role, setRole] = useState<Role>("viewer");
  const [createdEmail, setCreatedEmail] = useState<string | null>(null);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setCreatedEmail(null);
    create.mutate(
      { email: email.trim(), password, role },
      {
        onSuccess: (user) => {
          setCreatedEmail(user.email);
          setEmail("");
          setPassword("");
          setRole("viewer");
        },
      },
    );
  }

  return (
    <Card aria-labelledby="create-user-title">
      <CardHeader title="New person" titleId="create-user-title" description="Nobody signs themselves up: give the person their email and this password." />
      <CardBody>
        <form onSubmit={submit} className="flex flex-wrap items-end gap-3">
          <div className="min-w-56 flex-1">
            <label htmlFor="user-email" className="mb-1 block text-sm font-medium text-zinc-800">
              Email
            </label>
            <Input id="user-email" name="email" type="email" required autoComplete="off" value={email} onChange={(event) => setEmail(event.target.value)} />
          </div>
          <div className="min-w-48 flex-1">
            <label htmlFor="user-password" className="mb-1 block text-sm font-medium text-zinc-800">
              Password{" "}
              <span id="user-password-hint" className="font-normal text-zinc-500">
                (at least {MIN_PASSWORD_LENGTH} characters)
              </span>
            </label>
            <Input
              id="user-password"
              name="password"
              type="password"
              required
              minLength={MIN_PASSWORD_LENGTH}
              autoComplete="new-password"
              aria-describedby="user-password-hint"
              value={password}
              onChange={(event) => setPassword(event.target.value)}
            />
          </div>
          <div className="min-w-36">
            <label htmlFor="user-role" className="mb-1 block text-sm font-medium text-zinc-800">
              Role
            </label>
            <Select id="user-role" name="role" value={role} onChange={(event) => setRole(event.target.value as Role)}>
              {ROLES.map((option) => (
                <option key={option} value={option}>
                  {option}
                </option>
              ))}
            </Select>
          </div>
          <Button type="submit" variant="primary" pending={create.isPending}>
            Create person
          </Button>
        </form>
        {create.isError ? (
          <Alert tone="danger" title="The person was not created" className="mt-3">
            {create.error.message}
          </Alert>
        ) : createdEmail ? (
          <Alert tone="info" live title={`${createdEmail} can now sign in.`} className="mt-3" />
        ) : null}
      </CardBody>
    </Card>
  );
}

"use client";

import { useState, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { Input, Select } from "@/components/ui/input";
import { LoadFailed } from "@/components/ui/load-failed";
import { usePersonas } from "@/lib/client/use-personas";
import { useCreateToken } from "@/lib/client/use-tokens";
import { DEFAULT_PERSONA_NAME } from "@/lib/types/persona";

/**
 * The form that creates an API token (name + the persona it acts as; personas from
 * `GET /api/v1/personas`). `onCreated` receives the secret, shown once by the page.
 */
export function CreateTokenForm({ onCreated }: { onCreated: (created: { token: string; name: string; persona: string }) => void }) {
  const personas = usePersonas();
  const create = useCreateToken();
  const [name, setName] = useState("");
  const [chosen, setChosen] = useState("");
  const names = personas.data?.map((persona) => persona.name) ?? [];
  const persona = chosen || (names.includes(DEFAULT_PERSONA_NAME) ? DEFAULT_PERSONA_NAME : (names[0] ?? ""));

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    create.mutate(
      { name: name.trim(), persona },
      {
        onSuccess: (answer) => {
          setName("");
          onCreated({ token: answer.token, name: answer.info.name, persona: answer.info.persona });
        },
      },
    );
  }

  return (
    <Card aria-labelledby="create-token-title">
      <CardHeader title="New token" titleId="create-token-title" description="An agent sends it as Authorization: Bearer <token> and acts as its persona, with your role capped at operator (it can run calls, never sign, deny or confirm)." />
      <CardBody>
        {personas.isError ? (
          <LoadFailed title="Could not load the personas" error={personas.error} onRetry={() => void personas.refetch()} className="mb-3" />
        ) : null}
        <form onSubmit={submit} className="flex flex-wrap items-end gap-3">
          <div className="min-w-48 flex-1">
            <label htmlFor="token-name" className="mb-1 block text-sm font-medium text-zinc-800">
              Name
            </label>
            <Input id="token-name" name="name" required maxLength={100} autoComplete="off" placeholder="e.g. nightly-report-agent" value={name} onChange={(event) => setName(event.target.value)} />
          </div>
          <div className="min-w-48">
            <label htmlFor="token-persona" className="mb-1 block text-sm font-medium text-zinc-800">
              Persona
            </label>
            <Select id="token-persona" name="persona" required value={persona} disabled={!personas.isSuccess || names.length === 0} onChange={(event) => setChosen(event.target.value)}>
              {personas.isPending ? <option value="">Loading…</option> : null}
              {names.map((option) => (
                <option key={option} value={option}>
                  {option}
                </option>
              ))}
            </Select>
          </div>
          <Button type="submit" variant="primary" pending={create.isPending} disabled={persona === "" || name.trim() === ""}>
            Create token
          </Button>
        </form>
        {create.isError ? (
          <Alert tone="danger" title="The token was not created" className="mt-3">
            {create.error.message}
          </Alert>
        ) : null}
      </CardBody>
    </Card>
  );
}

"use client";

import { useState, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { useCreateWorkerToken } from "@/lib/client/use-worker-tokens";
import type { WorkerTokenInfo } from "@/lib/types/worker";

/** The labels typed as `gpu, eu-west`: trimmed, empty ones dropped, each once, in typed order. */
function parseLabels(text: string): string[] {
  return [...new Set(text.split(",").map((label) => label.trim()).filter((label) => label !== ""))];
}

/**
 * The form that creates a worker token (`POST /api/v1/worker-tokens` `{name, labels}`, admin; DESIGN.md
 * "Worker tokens"): a name and comma-separated labels, which every worker started with the token gets
 * (a call's `target` may name one). `onCreated` receives the token, shown once by the page. The server
 * checks the name and labels; its refusal is shown under the form.
 */
export function CreateWorkerTokenForm({ onCreated }: { onCreated: (created: { token: string; workerToken: WorkerTokenInfo }) => void }) {
  const create = useCreateWorkerToken();
  const [name, setName] = useState("");
  const [labels, setLabels] = useState("");

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    create.mutate(
      { name: name.trim(), labels: parseLabels(labels) },
      {
        onSuccess: (answer) => {
          setName("");
          setLabels("");
          onCreated(answer);
        },
      },
    );
  }

  return (
    <>
      <form onSubmit={submit} className="flex flex-wrap items-end gap-3" aria-label="New worker token">
        <div className="min-w-48 flex-1">
          <label htmlFor="worker-token-name" className="mb-1 block text-sm font-medium text-zinc-800">
            Name
          </label>
          <Input id="worker-token-name" name="name" required maxLength={100} autoComplete="off" placeholder="e.g. build-host-3" value={name} onChange={(event) => setName(event.target.value)} />
        </div>
        <div className="min-w-48 flex-1">
          <label htmlFor="worker-token-labels" className="mb-1 block text-sm font-medium text-zinc-800">
            Labels <span className="font-normal text-zinc-500">(comma-separated, optional)</span>
          </label>
          <Input
            id="worker-token-labels"
            name="labels"
            autoComplete="off"
            placeholder="e.g. gpu, eu-west"
            value={labels}
            aria-describedby="worker-token-labels-hint"
            onChange={(event) => setLabels(event.target.value)}
          />
        </div>
        <Button type="submit" variant="primary" pending={create.isPending} disabled={name.trim() === ""}>
          Create worker token
        </Button>
      </form>
      <p id="worker-token-labels-hint" className="mt-1.5 text-xs text-zinc-500">
        Every worker started with this token gets these labels; a call can name one as its target.
      </p>
      {create.isError ? (
        <Alert tone="danger" title="The worker token was not created" className="mt-3">
          {create.error.message}
        </Alert>
      ) : null}
    </>
  );
}

"use client";

import { useState } from "react";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { LoadFailed } from "@/components/ui/load-failed";
import { SkeletonRows } from "@/components/ui/skeleton";
import { useWorkerTokens } from "@/lib/client/use-worker-tokens";
import type { WorkerInfo, WorkerTokenInfo } from "@/lib/types/worker";
import { CreateWorkerTokenForm } from "./create-worker-token-form";
import { NewWorkerTokenBox } from "./new-worker-token-box";
import { WorkerTokensTable } from "./worker-tokens-table";

/**
 * The Workers page's "Worker tokens" section (admins only; DESIGN.md "Worker tokens"): the form that
 * creates one, the token just created (shown once, with the command that starts a worker), and every
 * token with Revoke. `workers` (undefined while unknown) tells the revoke confirmation who is cut off.
 */
export function WorkerTokensSection({ workers }: { workers: WorkerInfo[] | undefined }) {
  const tokens = useWorkerTokens();
  const [created, setCreated] = useState<{ token: string; workerToken: WorkerTokenInfo } | null>(null);

  return (
    <Card aria-labelledby="worker-tokens-title" className="min-w-0 overflow-hidden">
      <CardHeader
        title="Worker tokens"
        titleId="worker-tokens-title"
        description="A worker sends one to register and claim calls; revoking it cuts its workers off. Only admins see this."
      />
      <CardBody className="space-y-3">
        {created ? <NewWorkerTokenBox {...created} onDismiss={() => setCreated(null)} /> : null}
        <CreateWorkerTokenForm onCreated={setCreated} />
      </CardBody>
      <div className="border-t border-zinc-200">
        {tokens.isPending ? (
          <SkeletonRows rows={3} className="p-4" />
        ) : tokens.isError ? (
          <div className="p-3">
            <LoadFailed title="Could not load the worker tokens" error={tokens.error} onRetry={() => void tokens.refetch()} />
          </div>
        ) : tokens.data.length === 0 ? (
          <p className="px-4 py-6 text-center text-sm text-zinc-500">No worker tokens yet. Create one above for each host that runs a worker.</p>
        ) : (
          <WorkerTokensTable tokens={tokens.data} workers={workers} />
        )}
      </div>
    </Card>
  );
}

"use client";

import { useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { DateTime } from "@/components/ui/date-time";
import { ConfirmDialog } from "@/components/ui/dialog";
import { EmptyValue } from "@/components/ui/empty-value";
import { Table, TableBody, TableHead, Td, Th, Tr } from "@/components/ui/table";
import { useRevokeWorkerToken } from "@/lib/client/use-worker-tokens";
import type { WorkerInfo, WorkerTokenInfo } from "@/lib/types/worker";

function Labels({ labels }: { labels: string[] }) {
  if (labels.length === 0) return <EmptyValue label="no labels" />;
  return (
    <span className="flex flex-wrap gap-1">
      {labels.map((label) => (
        <Badge key={label} className="font-mono">
          {label}
        </Badge>
      ))}
    </span>
  );
}

/** What revoking `token` cuts off, for the confirmation: the workers registered with it that are not stopped. */
function affectedWorkers(token: WorkerTokenInfo, workers: WorkerInfo[]): WorkerInfo[] {
  return workers.filter((worker) => worker.token.id === token.id && worker.state !== "stopped");
}

/**
 * The worker tokens as a table (name, labels, prefix, created by and at, last used, status) with a
 * Revoke button per live token, asking for confirmation first and saying what it ends: the token's
 * workers are cut off and their running calls end `interrupted` (DESIGN.md "Worker tokens"). The
 * console's own local token is marked "managed by the console" and cannot be revoked here. `workers`
 * (undefined while unknown) names the workers a revocation would cut off.
 */
export function WorkerTokensTable({ tokens, workers }: { tokens: WorkerTokenInfo[]; workers: WorkerInfo[] | undefined }) {
  const revoke = useRevokeWorkerToken();
  const [target, setTarget] = useState<WorkerTokenInfo | null>(null);
  const affected = target && workers ? affectedWorkers(target, workers) : [];
  const running = affected.reduce((sum, worker) => sum + worker.running, 0);

  return (
    <>
      {revoke.isError ? (
        <Alert tone="danger" title="The worker token was not revoked" className="m-3">
          {revoke.error.message}
        </Alert>
      ) : null}
      <Table caption="Worker tokens">
        <TableHead>
          <Th>Name</Th>
          <Th>Labels</Th>
          <Th>Prefix</Th>
          <Th>Created</Th>
          <Th>Last used</Th>
          <Th>Status</Th>
          {/* relative: the sr-only label is absolutely placed, and must stay inside the table's own scroll box at 390 px. */}
          <Th className="relative">
            <span className="sr-only">Actions</span>
          </Th>
        </TableHead>
        <TableBody>
          {tokens.map((token) => (
            <Tr key={token.id} className={token.revokedAt ? "text-zinc-500" : undefined} data-testid="worker-token-row" data-token-name={token.name}>
              <Td label="Name" className="font-medium">
                <span className="flex flex-wrap items-center gap-1.5">
                  {token.name}
                  {token.local ? <Badge tone="blue">local</Badge> : null}
                </span>
              </Td>
              <Td label="Labels">
                <Labels labels={token.labels} />
              </Td>
              <Td label="Prefix" className="font-mono text-xs whitespace-nowrap">{token.prefix}…</Td>
              <Td label="Created">
                <span className="block whitespace-nowrap">
                  <DateTime iso={token.createdAt} />
                </span>
                <span className="block text-xs text-zinc-500">by {token.createdBy}</span>
              </Td>
              <Td label="Last used" className="whitespace-nowrap">
                <DateTime iso={token.lastUsedAt} emptyLabel="never used" />
              </Td>
              <Td label="Status" className="whitespace-nowrap">
                {token.revokedAt ? (
                  <span className="block">
                    <Badge tone="red">revoked</Badge>
                    <span className="mt-0.5 block text-xs">
                      <DateTime iso={token.revokedAt} />
                    </span>
                  </span>
                ) : (
                  <Badge tone="green" dot>
                    active
                  </Badge>
                )}
              </Td>
              <Td className="text-right">
                {token.local ? (
                  <span className="text-xs whitespace-nowrap text-zinc-500">managed by the console</span>
                ) : token.revokedAt ? null : (
                  <Button size="sm" variant="secondary" onClick={() => setTarget(token)} aria-label={`Revoke worker token ${token.name}`}>
                    Revoke
                  </Button>
                )}
              </Td>
            </Tr>
          ))}
        </TableBody>
      </Table>
      <ConfirmDialog
        open={target !== null}
        title={`Revoke worker token “${target?.name ?? ""}”?`}
        confirmLabel="Revoke"
        danger
        pending={revoke.isPending}
        onClose={() => setTarget(null)}
        onConfirm={() => {
          if (target) revoke.mutate(target.id, { onSettled: () => setTarget(null) });
        }}
      >
        <p>
          Its workers are cut off at once: their next request answers 401, and the calls they are running end <strong>interrupted</strong> (never
          re-run). This cannot be undone; create a new token to let a worker in again.
        </p>
        {workers ? (
          <p className="mt-2" data-testid="revoke-affected">
            {affected.length === 0
              ? "No worker is using it now."
              : `In use by ${[...new Set(affected.map((worker) => worker.name))].join(", ")} (${running} ${running === 1 ? "call" : "calls"} running now).`}
          </p>
        ) : null}
      </ConfirmDialog>
    </>
  );
}

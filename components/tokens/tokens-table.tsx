"use client";

import { useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { DateTime } from "@/components/ui/date-time";
import { ConfirmDialog } from "@/components/ui/dialog";
import { Table, TableBody, TableHead, Td, Th, Tr } from "@/components/ui/table";
import { useRevokeToken } from "@/lib/client/use-tokens";
import type { ApiTokenInfo } from "@/lib/types/identity";

/**
 * The API tokens as a table (name, persona, owner, prefix, created, last used, revoked) with a Revoke
 * button per live token, asking for confirmation first. Revocation takes effect on the token's next request.
 */
export function TokensTable({ tokens }: { tokens: ApiTokenInfo[] }) {
  const revoke = useRevokeToken();
  const [target, setTarget] = useState<ApiTokenInfo | null>(null);

  return (
    <>
      {revoke.isError ? (
        <Alert tone="danger" title="The token was not revoked" className="m-3">
          {revoke.error.message}
        </Alert>
      ) : null}
      <Table caption="API tokens">
        <TableHead>
          <Th>Name</Th>
          <Th>Persona</Th>
          <Th>Owner</Th>
          <Th>Prefix</Th>
          <Th>Created</Th>
          <Th>Last used</Th>
          <Th>Status</Th>
          <Th>
            <span className="sr-only">Actions</span>
          </Th>
        </TableHead>
        <TableBody>
          {tokens.map((token) => (
            <Tr key={token.id} className={token.revokedAt ? "text-zinc-500" : undefined}>
              <Td label="Name" className="font-medium">{token.name}</Td>
              <Td label="Persona" className="font-mono text-xs">{token.persona}</Td>
              <Td label="Owner">{token.owner}</Td>
              <Td label="Prefix" className="font-mono text-xs">{token.prefix}…</Td>
              <Td label="Created" className="whitespace-nowrap">
                <DateTime iso={token.createdAt} />
              </Td>
              <Td label="Last used" className="whitespace-nowrap">
                <DateTime iso={token.lastUsedAt} emptyLabel="never used" />
              </Td>
              <Td label="Status" className="whitespace-nowrap">
                {token.revokedAt ? (
                  <Badge tone="red" title={`Revoked ${token.revokedAt}`}>
                    revoked
                  </Badge>
                ) : (
                  <Badge tone="green" dot>
                    active
                  </Badge>
                )}
              </Td>
              <Td className="text-right">
                {token.revokedAt ? null : (
                  <Button size="sm" variant="secondary" onClick={() => setTarget(token)} aria-label={`Revoke token ${token.name}`}>
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
        title={`Revoke token “${target?.name ?? ""}”?`}
        confirmLabel="Revoke"
        danger
        pending={revoke.isPending}
        onClose={() => setTarget(null)}
        onConfirm={() => {
          if (target) revoke.mutate(target.id, { onSettled: () => setTarget(null) });
        }}
      >
        Agents using it get 401 from their next request on. This cannot be undone; create a new token to give access again.
      </ConfirmDialog>
    </>
  );
}

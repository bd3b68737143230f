"use client";

import { useState } from "react";
import { PageHeader } from "@/components/layout/page-header";
import { Alert } from "@/components/ui/alert";
import { Card } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { LoadFailed } from "@/components/ui/load-failed";
import { SkeletonRows } from "@/components/ui/skeleton";
import { useIdentity } from "@/lib/client/identity";
import { useTokens } from "@/lib/client/use-tokens";
import { roleAtLeast } from "@/lib/types/identity";
import { CreateTokenForm } from "./create-token-form";
import { NewTokenBox } from "./new-token-box";
import { TokensTable } from "./tokens-table";

/** Placeholder of the tokens table while it loads. */
export function TokensSkeleton() {
  return (
    <Card>
      <SkeletonRows rows={5} className="p-4" />
    </Card>
  );
}

/**
 * The Tokens page body (issue 4 point 1): operators and above create tokens for agents (shown once),
 * see theirs (an admin sees all) and revoke them; viewers are told they need the operator role.
 */
export function TokensPage() {
  const identity = useIdentity();
  const allowed = identity.data ? roleAtLeast(identity.data.role, "operator") : false;
  const tokens = useTokens(allowed);
  const [created, setCreated] = useState<{ token: string; name: string; persona: string } | null>(null);

  const header = (
    <PageHeader
      title="API tokens"
      description={
        identity.data?.role === "admin"
          ? "Every token of the console. Agents send one as a bearer token and act as its persona."
          : "Your tokens. Agents send one as a bearer token and act as its persona."
      }
    />
  );

  if (identity.isPending) {
    return (
      <>
        {header}
        <TokensSkeleton />
      </>
    );
  }
  if (!allowed) {
    return (
      <>
        {header}
        <Alert tone="info" title="Tokens need the operator role">
          You are signed in as {identity.data?.role ?? "a viewer"}. Ask an admin for the operator role to create API tokens for agents.
        </Alert>
      </>
    );
  }

  return (
    <>
      {header}
      <div className="space-y-4">
        {created ? <NewTokenBox {...created} onDismiss={() => setCreated(null)} /> : null}
        <CreateTokenForm onCreated={setCreated} />
        {tokens.isPending ? (
          <TokensSkeleton />
        ) : tokens.isError ? (
          <LoadFailed title="Could not load the tokens" error={tokens.error} onRetry={() => void tokens.refetch()} />
        ) : tokens.data.length === 0 ? (
          <EmptyState title="No tokens yet">Create one above for each agent, so that each can be revoked on its own.</EmptyState>
        ) : (
          <Card className="overflow-hidden">
            <TokensTable tokens={tokens.data} />
          </Card>
        )}
      </div>
    </>
  );
}
